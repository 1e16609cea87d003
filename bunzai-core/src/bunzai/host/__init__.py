"""The plugin host: the hooks a plugin implements, the adapter base class, loading plugins
from entry points, and the registry core calls adapters through."""
