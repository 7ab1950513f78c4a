package extras

import (
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/reqlog"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
)

// Local answers the sandbox's own endpoints.
type Local struct {
	*service.Service
	Log       *reqlog.Log // nil: requests are not logged
	stateFile bool        // the state is a file, not in memory
	started   time.Time   // when New opened the state, for /_sandbox/health
	// Instance is the id /_sandbox/health answers (see Health.Instance):
	// set by Serve before it accepts a request.
	Instance string
}

// NewLocal answers the sandbox's own endpoints beside svc's; reqlog is
// nil when requests are not logged.
func NewLocal(svc *service.Service, reqlog *reqlog.Log, stateFile bool) *Local {
	return &Local{Service: svc, Log: reqlog, stateFile: stateFile, started: time.Now()}
}
