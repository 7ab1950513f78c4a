package main

// The command reference in docs/commands and docs/man is generated from the
// command tree by a program of its own, so that its renderers are not linked
// into bnpl; internal/docgen's test fails when the reference is stale.
//go:generate go run ./internal/docgen/cmd/gendocs --out-dir docs
