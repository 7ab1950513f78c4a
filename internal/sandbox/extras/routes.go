package extras

import (
	"net/http"

	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
)

// Routes registers the sandbox's own endpoints of one region: control,
// hosted page, dashboard, health, deliveries and the request log.
func (s *Local) Routes(mux *http.ServeMux, region string) {
	s.controlRoutes(mux, region)
	s.hppRoutes(mux, region)
	s.dashboardRoutes(mux, region)
	s.deliveryRoutes(mux)
	s.timesRoutes(mux)
	mux.HandleFunc("POST /_sandbox/payments/{id}/dispute", middleware.LoopbackOnly(s.handleControlOpenDispute))
	mux.HandleFunc("POST /_sandbox/disputes/{id}/resolve", middleware.LoopbackOnly(s.handleControlResolveDispute))
	mux.HandleFunc("GET /_sandbox/health", s.handleHealth)
}
