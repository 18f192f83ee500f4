"""Pure bandit policies (numpy and scipy only, no IO): ThinkPath's learning core."""
