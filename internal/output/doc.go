// Package output turns what the service sends into what a person or a
// script reads. IOStreams knows whether stdin, stdout and stderr are
// terminals, how wide stdout is and whether colour is wanted; Printer
// renders records as a table, TSV, CSV, JSON, JSON lines, the results of a
// jq filter or a Go template; PrintError reports an error on stderr.
//
// Records travel as the raw JSON the service sent (json.RawMessage), so
// -o json never loses, reorders or rewrites a field the CLI does not know
// about: it is only indented (on a terminal) or compacted (when piped).
// Tables, TSV and CSV read fields out of that JSON by dotted paths, with
// numbers kept as json.Number so amounts print exactly as sent.
//
// Choices worth knowing:
//
//   - Default format: table when stdout is a terminal, tsv otherwise.
//     --jq and --template take precedence over -o; Format reports "json"
//     for --jq and "template" for --template.
//   - --jq prints each result on its own line: strings raw, as `jq -r` does,
//     since the usual aim is to feed a field to another command; other
//     values as JSON, indented on a terminal and compact when piped, with
//     object keys sorted (gojq's encoding). Parse and compile errors are
//     exit code 2 from NewPrinter; an expression failing on the data is 1.
//   - --template is Go's text/template over the decoded JSON with the
//     functions json, upper, lower, join (separator first) and lookup (a
//     dotted path, "" when missing; a plain {{.missing}} prints Go's
//     "<no value>"). A newline is added to output that does not end in one.
//   - List gives --jq and --template the whole list as one array; Stream
//     gives them one record at a time.
//   - --columns names are matched to the columns' headers (any case), then
//     their paths; any other name is a dotted path into the JSON, headed by
//     the name as typed. A name is refused as unknown (exit 2, listing the
//     columns) only when it is not a column and resolves in no record
//     (List: any record; Stream: the first). With no records nothing can be
//     checked and the name is kept. --columns applies to lists, not to the
//     detail view of Object.
//   - Tables are borderless, fitted to TerminalWidth by one policy
//     (planTable): times shorten to the date and go first, then references
//     are cut and dropped, then free text, then short words are cut; ids and
//     amounts are never cut; an id of another record (KindLinkID) is dropped
//     whole before a status is cut, since a cut status ("evidence_…") says
//     nothing while the id is one `get` away; what gave way comes back when
//     a later step made room. Wrapped and Below columns, and columns named
//     in --columns, wrap over more lines instead of being cut; a Below
//     column goes under its row when the line has no room for it, or
//     would have it only by breaking a word (a URL after its scheme). Not on a
//     terminal nothing is cut. Amounts read
//     "1250.00 AED", right-aligned; times in the --time style; statuses and
//     days left coloured when colour is on. A table with no rows prints
//     nothing (the caller says so on stderr); TSV and CSV print their header.
//   - Stream keeps memory constant; see Stream for the table batching.
//   - Cells are single lines: tabs, newlines and other control characters
//     become spaces in tables and TSV, so service data cannot break rows or
//     send escape sequences to a terminal. CSV keeps values intact.
//
// Nothing here runs at package init, and System does no more than three
// terminal checks; the terminal width is asked for on first use.
package output
