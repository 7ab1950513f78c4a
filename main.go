// Command bnpl is a command-line client for merchants of an installment
// payment service, with a faithful local sandbox of that service.
package main

import (
	"os"

	"github.com/bnpl-cli/bnpl/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
