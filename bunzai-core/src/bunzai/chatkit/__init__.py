"""What chat formats share: times as the apps write them, and the steps every chat reader and
writer takes.  Formats reach it through :mod:`bunzai.sdk.chats`."""
