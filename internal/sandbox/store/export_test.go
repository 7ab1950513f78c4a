package store

// What the external tests of the package (store_test) use of it.
var (
	OlderStateFile = olderStateFile
	LayoutBreaks   = layoutBreaks
)
