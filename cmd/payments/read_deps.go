package payments

import (
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// ReadDeps are what list and report, the commands that read pages of
// payments, depend on, as functions so that tests can stub any of them.
type ReadDeps struct {
	Now     func() time.Time
	Notice  func(format string, args ...any)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	// IO tells whether stdout and stderr are terminals; progress is drawn
	// on stderr when it is one, unless Quiet (-q, read once the flags are
	// parsed: bind). nil: neither is.
	IO    *output.IOStreams
	Quiet bool
}

// newReadDeps are the factory's dependencies, printing with printer.
func newReadDeps(f *cmdutil.Factory, printer func() (*output.Printer, error)) ReadDeps {
	return ReadDeps{Now: time.Now, Notice: f.Noticef, Client: f.Client, Printer: printer, IO: f.IO}
}

// bind takes the global flags a read obeys, once they are parsed.
func (d *ReadDeps) bind(f *cmdutil.Factory) { d.Quiet = f.Global.Quiet }

// open is the start of a read: its printer, then its client.
func (d *ReadDeps) open() (*output.Printer, *api.Client, error) {
	return cmdutil.PrinterAndClient(d.Printer, d.Client)
}

// progress is the line that shows the pages read while a walk lasts.
func (d *ReadDeps) progress() *cmdutil.Progress { return cmdutil.NewProgress(d.IO, d.Quiet) }
