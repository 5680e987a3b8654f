package console

// WithPageBytes sets the byte cap of a page of …/messages (maxPageBytes),
// so that a test pages through kilobytes the way a server pages through
// megabytes.
func WithPageBytes(n int) Option { return optionFunc(func(c *config) { c.pageBytes = n }) }
