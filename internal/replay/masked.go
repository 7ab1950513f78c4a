package replay

import (
	"strings"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// maxHeaderValue is the service's bound on a webhook header's value.
const maxHeaderValue = 1024

// unmaskHeaderValues gives each webhook header value the recording holds
// masked ("****wxyz") a value the service would judge as it judged the
// recorded one: within its bound, ending with the characters the mask
// shows (so the echo is masked alike), when the service took the request;
// over its bound when it refused it. A body without masked values is
// returned as it is.
func unmaskHeaderValues(body []byte, x *Exchange) []byte {
	if !strings.Contains(string(body), `"****`) {
		return body
	}
	refused := x.Status >= 400 && x.Status <= 499
	out, _ := secret.EditJSON(body, func(doc any) (any, bool) { return doc, standIns(doc, refused) })
	return out
}

func standIns(v any, refused bool) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if h, ok := child.(map[string]any); ok && strings.EqualFold(k, "header") {
				if value, ok := h["value"].(string); ok && strings.HasPrefix(value, "****") {
					h["value"], changed = standIn(strings.TrimPrefix(value, "****"), refused), true
				}
			}
			changed = standIns(child, refused) || changed
		}
	case []any:
		for _, child := range t {
			changed = standIns(child, refused) || changed
		}
	}
	return changed
}

// standIn is a value whose mask shows tail: longer than 8 characters when
// tail is shown, 8 when it is not, and longer than the service's bound
// when the service refused the recorded one.
func standIn(tail string, refused bool) string {
	n := 8 + len([]rune(tail))
	if refused {
		n = maxHeaderValue + 1
	}
	return strings.Repeat("v", n-len([]rune(tail))) + tail
}
