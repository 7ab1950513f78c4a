package store

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// The doc encodeRecord's parts join to is the one json.Marshal writes, whatever
// fields are set, so that state files stay what every binary reads.
func TestEncodeRecordIsMarshal(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	token := "tok<&>"
	full := &Record{
		Payment: wire.Payment{ID: "p1", Status: wire.StatusAuthorized, Amount: decimal.RequireFromString("10.50"),
			Currency: "AED", CreatedAt: &at, Captures: []wire.Capture{{ID: "c1", Amount: decimal.RequireFromString("1")}}},
		Session: Session{SessionID: "s1", MerchantCode: "m", Region: "ae", Lang: "en", MerchantURLs: &wire.MerchantURLs{},
			Token: &token, SessionStatus: "approved", RejectionReason: "<why>", SessionExpiresAt: at,
			AuthorizedAt: &at, AuthExpiresAt: &at, ClosedAt: &at},
	}
	for name, r := range map[string]*Record{"empty": {}, "full": full} {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		view, session, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		doc := joinDoc(view, session)
		if !bytes.Equal(doc, want) || docLen(view, session) != len(doc) {
			t.Errorf("%s: doc\n%s\nwant\n%s", name, doc, want)
		}
		wantView, _ := json.Marshal(&r.Payment)
		if !bytes.Equal(view, wantView) {
			t.Errorf("%s: view %s, want %s", name, view, wantView)
		}
	}
}
