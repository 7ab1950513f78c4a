package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// duplicateKeys lists, as JSON paths, every member name that appears twice
// in one object of the document b. encoding/json keeps the last of two
// such members when it decodes into a map and may fail on the first when
// it decodes into a struct, so a body with one is ambiguous: which value
// the service would take is a guess, and it is refused before sending.
// A document that does not parse yields nothing (its own error says so).
func duplicateKeys(b []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var dups []string
	if walkDuplicates(dec, "$", &dups) != nil {
		return nil
	}
	return dups
}

func walkDuplicates(dec *json.Decoder, path string, dups *[]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			child := path + "." + k
			if seen[k] {
				*dups = append(*dups, child)
			}
			seen[k] = true
			if err := walkDuplicates(dec, child, dups); err != nil {
				return err
			}
		}
		_, err = dec.Token() // the closing brace
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkDuplicates(dec, fmt.Sprintf("%s[%d]", path, i), dups); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}
