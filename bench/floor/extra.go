//go:build floorextra

package main

// With -tags floorextra the floor also links the libraries bnpl uses beyond
// the design card (the jq engine, the sandbox's SQLite,
// the keychain), so that bench/startup.sh can tell what their package
// initialisation costs from what bnpl's own code costs.
import (
	_ "github.com/itchyny/gojq"
	_ "github.com/zalando/go-keyring"
	_ "modernc.org/sqlite"
)
