//go:build !race

package store

import "github.com/bnpl-cli/bnpl/internal/wire"

// verifyRecordCache: see reccache_verify_race.go.
const verifyRecordCache = false

func mustDecodeAlike(*Record, []byte, string) {}

func mustMarshalAlike([]byte, *wire.Payment) {}

func mustMarshalSessionAlike([]byte, *Session) {}
