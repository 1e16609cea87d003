"""bunzai format adapter: NovelAI lorebooks (.lorebook JSON and naidata PNGs)."""
