package cmdutil

import (
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ExactArgs is cobra.ExactArgs with a usage error that names what is
// missing, so `bnpl payments get` says "needs a payment id".
func ExactArgs(n int, names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		if len(args) < n {
			return Usagef("%s needs %s", cmd.CommandPath(), strings.Join(names[len(args):], " and "))
		}
		return TooManyArgs(cmd, args, fmt.Sprintf("%d %s", n, plural(n, "argument", "arguments")))
	}
}

// TooManyArgs is the usage error of a command given more words than it
// takes (what: "one payment id"). Its hint names the likely cause: a
// space after order: (order: REF), or a flag's value with spaces left
// unquoted (--buyer Layla Haddad).
func TooManyArgs(cmd *cobra.Command, args []string, what string) error {
	hint := "a flag's value with spaces needs quotes: --reason 'not as described'"
	for i, a := range args[:len(args)-1] {
		if strings.HasSuffix(a, ":") {
			hint = fmt.Sprintf("write %s as one word, with no space after the colon: %s%s", a+"REF", a, args[i+1])
			break
		}
	}
	return UsageHint(hint, "%s takes %s, got %d: %s", cmd.CommandPath(), what, len(args), strings.Join(quoteSpaced(args), " "))
}

// quoteSpaced quotes the arguments that hold a space, so the list reads
// as the words the command was given.
func quoteSpaced(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t") {
			out[i] = fmt.Sprintf("%q", a)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// MinArgs requires at least n arguments.
func MinArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return Usagef("%s needs at least %d %s", cmd.CommandPath(), n, what)
		}
		return nil
	}
}

// AtMostOneArg accepts no argument or one; more are refused as too many,
// what saying what the command takes ("at most one profile name").
func AtMostOneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 1 {
			return TooManyArgs(cmd, args, what)
		}
		return nil
	}
}

// NoArgs refuses positional arguments.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return TooManyArgs(cmd, args, "no arguments")
	}
	return nil
}

// CheckUUID validates an id locally, so a typo never reaches the service.
func CheckUUID(what, id string) error {
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return Refuse(fmt.Sprintf("%s ids are UUIDs such as 3fa85f64-5717-4562-b3fc-2c963f66afa6", what),
			"invalid %s id %q: not a UUID", what, id)
	}
	return nil
}

// Deprecate hides flag name of fs and has its use say on stderr, in one
// line, what to use instead (msg). The flag keeps working. Cobra would
// print the line on the command's output, stdout here, so the flag set
// writes to stderr itself.
func (f *Factory) Deprecate(fs *pflag.FlagSet, name, msg string) {
	fs.SetOutput(stderrOf{f})
	_ = fs.MarkDeprecated(name, msg)
}

// DeprecateShort has the use of a flag's one-letter form say on stderr what
// to use instead; the long form is unchanged.
func (f *Factory) DeprecateShort(fs *pflag.FlagSet, name, msg string) {
	fs.SetOutput(stderrOf{f})
	_ = fs.MarkShorthandDeprecated(name, msg)
}

// stderrOf writes to the factory's stderr as it is when written to.
type stderrOf struct{ f *Factory }

func (w stderrOf) Write(p []byte) (int, error) { return w.f.IO.ErrOut.Write(p) }
