package edge

import "context"

// FaultNote is how the fault middleware tells the request log what it
// injected into a request: the log hands one down in the request's
// context, the middleware fills it. Without it, a 500 that committed
// could not be told from one that did not.
type FaultNote struct {
	// Kind is the fault injected (500-before, 500-after, drop-after,
	// lock, 429); "" when none was.
	Kind string
	// Committed is, for a fault after the request ran (500-after,
	// drop-after), the status its own handler answered: the change it
	// made is in the state though the client never heard of it.
	Committed int
}

type faultNoteKey struct{}

// WithFaultNote answers ctx carrying a note for the request's fault.
func WithFaultNote(ctx context.Context) (context.Context, *FaultNote) {
	n := &FaultNote{}
	return context.WithValue(ctx, faultNoteKey{}, n), n
}

// NoteFault records the fault injected into the request of ctx, if a
// note was handed down.
func NoteFault(ctx context.Context, kind string, committed int) {
	if n, ok := ctx.Value(faultNoteKey{}).(*FaultNote); ok {
		n.Kind, n.Committed = kind, committed
	}
}
