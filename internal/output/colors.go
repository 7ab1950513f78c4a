package output

// LiveBadge styles the LIVE mark of a command running with a live key:
// bold red, the one place colour says "real money".
func (c *ColorScheme) LiveBadge(s string) string { return c.wrap("1;31", s) }
