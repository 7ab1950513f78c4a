package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
)

func TestExitCode(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitError},
		{Usagef("bad flag"), ExitUsage},
		{Refuse("do this", "refused"), ExitUsage},
		{fmt.Errorf("wrapped: %w", Usagef("x")), ExitUsage},
		{&api.APIError{Status: 400}, ExitBadData},
		{&api.APIError{Status: 401}, ExitAuth},
		{&api.APIError{Status: 403}, ExitPermission},
		{&api.APIError{Status: 404}, ExitNotFound},
		{&api.APIError{Status: 409}, ExitConflict},
		{&api.APIError{Status: 429}, ExitRateLimited},
		{&api.APIError{Status: 503}, ExitServer},
		{&api.NetworkError{Op: "GET /x", Err: errors.New("reset")}, ExitNetwork},
		{context.Canceled, ExitInterrupted},
		{&Silent{Code: 11}, ExitBulkFailed},
	}
	for _, c := range cases {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

func TestShowsUsage(t *testing.T) {
	if !ShowsUsage(Usagef("x")) {
		t.Error("usage error does not show usage")
	}
	if ShowsUsage(Refuse("h", "x")) {
		t.Error("a local refusal should not print the usage")
	}
}
