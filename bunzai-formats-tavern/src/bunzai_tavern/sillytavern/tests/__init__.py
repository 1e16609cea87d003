"""Tests of the sillytavern format, and the card files the Tavern formats' tests build."""
