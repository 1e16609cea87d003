"""Tests of the voxta adapter, and the fixture packages every Voxta test builds."""
