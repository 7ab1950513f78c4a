package sandbox

import (
	"time"
)

// Local answers the sandbox's own endpoints.
type Local struct {
	*Service
	reqlog    *requestLog // nil: requests are not logged
	stateFile bool        // the state is a file, not in memory
	started   time.Time   // when New opened the state, for /_sandbox/health
}

// newLocal answers the sandbox's own endpoints beside svc's; reqlog is
// nil when requests are not logged.
func newLocal(svc *Service, reqlog *requestLog, stateFile bool) *Local {
	return &Local{Service: svc, reqlog: reqlog, stateFile: stateFile, started: time.Now()}
}
