package main

// The command reference in docs/commands and docs/man is generated from the
// command tree; cmd/docs's test fails when it is stale.
//go:generate go run . docs --out-dir docs
