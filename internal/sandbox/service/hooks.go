package service

import (
	"net/http"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
)

// hookResource is one of the API's two webhook resources (payment
// webhooks, dispute webhooks). Their five verbs are served once, by the
// handlers below, over what differs between them: the kind of hook the
// outbox keeps, whether the key's mode scopes the hooks, how many a
// merchant may have, the refusal of a malformed id, the checks of a body,
// the wording of a refused request and the view the API answers. op
// names the verb as the service words it: "create payment webhook".
type hookResource struct {
	kind string
	noun string
	// scoped: a test key sees only test hooks and a live key live ones.
	scoped bool
	max    int
	badID  error
	// fromBody checks a create or replace body and makes the hook of id.
	fromBody func(s *Service, r *http.Request, c caller, id, op string) (*outbox.HookRow, error)
	// refuse words an error of the outbox as the service does.
	refuse func(op string, err error) error
	view   func(h *outbox.HookRow) any
}

type hookHandler = func(http.ResponseWriter, *http.Request, caller)

// hookRoutes serves the five verbs of res under path, each behind guard
// (the resource's authentication and rules of the request).
func (s *Service) hookRoutes(mux *http.ServeMux, path string, res *hookResource, guard func(hookHandler) http.HandlerFunc) {
	mux.HandleFunc("GET "+path, guard(func(w http.ResponseWriter, r *http.Request, c caller) { s.listHooks(w, r, c, res) }))
	mux.HandleFunc("POST "+path, guard(func(w http.ResponseWriter, r *http.Request, c caller) {
		s.saveHook(w, r, c, res, "create", s.NewID(r.Context()))
	}))
	mux.HandleFunc("GET "+path+"/{id}", guard(func(w http.ResponseWriter, r *http.Request, c caller) { s.getHook(w, r, c, res) }))
	// A replace is of the whole object: a body without a header leaves
	// the webhook without one.
	mux.HandleFunc("PUT "+path+"/{id}", guard(func(w http.ResponseWriter, r *http.Request, c caller) {
		if id, ok := res.id(w, r); ok {
			s.saveHook(w, r, c, res, "update", id)
		}
	}))
	mux.HandleFunc("DELETE "+path+"/{id}", guard(func(w http.ResponseWriter, r *http.Request, c caller) { s.deleteHook(w, r, c, res) }))
}

// isTest is the mode of the hooks c sees.
func (res *hookResource) isTest(c caller) bool { return res.scoped && c.isTest }

// id is the hook the path names, or false with its refusal written.
func (res *hookResource) id(w http.ResponseWriter, r *http.Request) (string, bool) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, res.badID)
	}
	return id, ok
}

func (s *Service) listHooks(w http.ResponseWriter, r *http.Request, c caller, res *hookResource) {
	hooks, err := outbox.ListHooks(r.Context(), s.DB, res.kind, c.merchant.Code, res.isTest(c))
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	out := make([]any, 0, len(hooks))
	for _, h := range hooks {
		out = append(out, res.view(h))
	}
	edge.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) getHook(w http.ResponseWriter, r *http.Request, c caller, res *hookResource) {
	id, ok := res.id(w, r)
	if !ok {
		return
	}
	h, err := outbox.GetHook(r.Context(), s.DB, res.kind, c.merchant.Code, res.isTest(c), id)
	if err != nil {
		edge.WriteError(w, res.refuse("get "+res.noun, err))
		return
	}
	edge.WriteJSON(w, http.StatusOK, res.view(h))
}

// saveHook creates (verb "create") or replaces ("update") the hook id as
// the body says.
func (s *Service) saveHook(w http.ResponseWriter, r *http.Request, c caller, res *hookResource, verb, id string) {
	op := verb + " " + res.noun
	h, err := res.fromBody(s, r, c, id, op)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	if err := s.Outbox.SaveHook(r.Context(), h, res.max, verb == "update"); err != nil {
		edge.WriteError(w, res.refuse(op, err))
		return
	}
	edge.WriteJSON(w, http.StatusOK, res.view(h))
}

func (s *Service) deleteHook(w http.ResponseWriter, r *http.Request, c caller, res *hookResource) {
	id, ok := res.id(w, r)
	if !ok {
		return
	}
	if err := s.Outbox.DeleteHook(r.Context(), res.kind, c.merchant.Code, res.isTest(c), id); err != nil {
		edge.WriteError(w, res.refuse("delete "+res.noun, err))
		return
	}
	edge.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
