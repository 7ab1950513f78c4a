package cmd

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// unknownShorthand reads pflag's "unknown shorthand flag: 'L' in -L".
var unknownShorthand = regexp.MustCompile(`^unknown shorthand flag: '(.)' in -`)

// shorthandHint says what a one-letter flag that c does not take may have
// meant, as "Did you mean --limit?" does for a mistyped long one: the same
// letter in the other case when c has it (-l for -L); the long flag the
// letter stands for in other commands, which c may take by its long name
// only; the long flags of c that start with the letter (-a for
// --amount); else the one-letter flags c does take. "" when err is not
// about a one-letter flag.
func shorthandHint(c *cobra.Command, err error) string {
	m := unknownShorthand.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	letter := m[1]
	if fl := shorthandOf(c, swapCase(letter)); fl != nil {
		return fmt.Sprintf("Did you mean -%s (--%s)?", fl.Shorthand, fl.Name)
	}
	here := c.CommandPath()
	for name, paths := range shorthandsInTree(c, letter) {
		elsewhere := "-" + letter + " is --" + name + " of " + joinAnd(paths)
		if fl := c.Flags().Lookup(name); fl != nil && !fl.Hidden {
			return fmt.Sprintf("Did you mean --%s? (%s; %s takes it by its long name)", name, elsewhere, here)
		}
		return fmt.Sprintf("%s; %s has no --%s", elsewhere, here, name)
	}
	var short, long []string
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden || fl.Deprecated != "" || fl.Name == "help" {
			return
		}
		if strings.EqualFold(fl.Name[:1], letter) {
			long = append(long, "--"+fl.Name)
		}
		if fl.Shorthand != "" && fl.ShorthandDeprecated == "" {
			short = append(short, "-"+fl.Shorthand+" (--"+fl.Name+")")
		}
	})
	switch {
	case len(long) > 0 && len(long) <= 3:
		return "Did you mean " + strings.Join(long, " or ") + "?"
	case len(short) > 0:
		return "the one-letter flags of " + here + " are " + joinAnd(short)
	}
	return ""
}

// shorthandOf is the flag of c, its own or inherited, whose one-letter
// form is letter; nil when none is, or it is hidden.
func shorthandOf(c *cobra.Command, letter string) *pflag.Flag {
	if letter == "" {
		return nil
	}
	fl := c.Flags().ShorthandLookup(letter)
	if fl == nil || fl.Hidden || fl.ShorthandDeprecated != "" {
		return nil
	}
	return fl
}

// shorthandsInTree lists, by long name, the commands of the whole tree
// whose flag letter is the one-letter form of. The tree of a run may hold
// one noun only (onlyNoun), so the whole one is built apart, over a
// factory of its own that nothing runs on.
func shorthandsInTree(c *cobra.Command, letter string) map[string][]string {
	ios, _, _, _ := output.Test()
	root := newRoot(&cmdutil.Factory{IO: ios, Global: &cmdutil.GlobalOptions{}, Getenv: func(string) string { return "" }}, "")
	found := map[string][]string{}
	VisitShown(root, func(cmd *cobra.Command, _ []string) {
		cmd.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if fl.Shorthand == letter && !fl.Hidden && fl.ShorthandDeprecated == "" {
				found[fl.Name] = append(found[fl.Name], cmd.CommandPath())
			}
		})
	})
	for name := range found {
		slices.Sort(found[name])
	}
	return found
}

// VisitShown calls visit for c and for every command below it that help
// is shown for (a hidden command and those below it are passed over),
// with the names of its path from c, c first, each before those below it.
func VisitShown(c *cobra.Command, visit func(c *cobra.Command, path []string)) {
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden {
			return
		}
		visit(c, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(c, nil)
}

// swapCase is a one-letter flag in the other case: "l" for "L".
func swapCase(letter string) string {
	switch up := strings.ToUpper(letter); {
	case up != letter:
		return up
	case strings.ToLower(letter) != letter:
		return strings.ToLower(letter)
	}
	return ""
}

// joinAnd joins items as a sentence does: "a, b and c".
func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
