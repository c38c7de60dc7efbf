// Tests for the kittens plugin.
