"""Tests of the voxta-lorebook adapter."""
