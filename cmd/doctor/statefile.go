package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// checkState is the "sandbox state" line: the embedded sandbox's state
// file can be opened, read and written, and the delivery rules it holds
// (set by the last `bnpl sandbox serve` on it) with whether one serves it
// now. A file that cannot be used fails with the file and the problem.
func checkState(ctx context.Context, path string, inspect func(context.Context, string) (*sandbox.StateInfo, error)) Check {
	c := Check{Name: "sandbox state"}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Message = StatusOK, "no state yet at "+path+": the first command makes it"
		return c
	}
	info, err := inspect(ctx, path)
	if err != nil {
		c.Status = StatusFail
		c.Message = err.Error()
		var se *sandbox.StateError
		if errors.As(err, &se) {
			c.Fix = se.Hint()
		}
		return c
	}
	c.Status = StatusOK
	c.Message = fmt.Sprintf("%s is usable; webhooks: %s", path, info.Rules)
	if info.Served {
		c.Message += "; served at " + info.ServedBy + ", which delivers its webhooks"
	}
	if info.Pending > 0 {
		c.Message += fmt.Sprintf("; %d deliveries pending", info.Pending)
		if !info.Served {
			c.Status = StatusWarn
			c.Fix = "`bnpl sandbox serve` delivers them"
		}
	}
	return c
}
