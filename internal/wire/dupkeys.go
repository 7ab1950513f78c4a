package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// duplicateKeys lists, as JSON paths, every member name that appears twice
// in one object of the document b. encoding/json keeps the last of two
// such members when it decodes into a map and may fail on the first when
// it decodes into a struct, so a body with one is ambiguous: which value
// the service would take is a guess, and it is refused before sending.
// A document that does not parse yields nothing (its own error says so).
func duplicateKeys(b []byte) []string {
	if noDuplicateKeys(b) {
		return nil
	}
	return walkDuplicateKeys(b)
}

// RepeatedNameMessage is what a member name that appears twice in one
// object is told, by the client and the sandbox alike.
const RepeatedNameMessage = "appears twice in its object: keep one"

// CheckRepeatedNames finds every member name that appears twice in one
// object of the document b, for a caller that decodes b into a map before
// it checks it (the map keeps one of the two, and the rules then never see
// the other).
func CheckRepeatedNames(b []byte) []Finding {
	var findings []Finding
	for _, path := range duplicateKeys(b) {
		findings = append(findings, Finding{Path: path, Code: CodeInvalid, Message: RepeatedNameMessage, Service: RepeatedNameMessage})
	}
	return findings
}

// walkDuplicateKeys is duplicateKeys by a walk of the document's tokens.
func walkDuplicateKeys(b []byte) []string {
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

// maxScannedKeys bounds the members of one object noDuplicateKeys
// compares pairwise; a larger object goes to the walk.
const maxScannedKeys = 64

// noDuplicateKeys tells, in one pass over the bytes and without decoding,
// that no object of the document b has a member name twice: most bodies
// have none, and the walk of duplicateKeys (a token and a path for each
// value) is then not needed. False means it may (or it cannot tell: an
// escaped name, a large object, bytes that are not one document); the
// walk judges.
func noDuplicateKeys(b []byte) bool {
	var keys [][]byte // the names of the open objects, one after another
	var starts []int  // per open object or array: where its names begin in keys; -1 for an array
	expectKey := false
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			starts = append(starts, len(keys))
			expectKey = true
		case '[':
			starts = append(starts, -1)
			expectKey = false
		case '}', ']':
			if len(starts) == 0 {
				return false
			}
			if top := starts[len(starts)-1]; top >= 0 {
				keys = keys[:top]
			}
			starts = starts[:len(starts)-1]
			expectKey = false
		case ',':
			expectKey = len(starts) > 0 && starts[len(starts)-1] >= 0
		case ':':
			expectKey = false
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					if expectKey {
						return false
					}
					j++
				}
				j++
			}
			if j >= len(b) {
				return false
			}
			if expectKey {
				top := starts[len(starts)-1]
				name := b[i+1 : j]
				if len(keys)-top >= maxScannedKeys || !utf8.Valid(name) { // decoding would change an invalid name
					return false
				}
				for _, k := range keys[top:] {
					if bytes.Equal(k, name) {
						return false
					}
				}
				keys = append(keys, name)
			}
			i = j
		}
	}
	return len(starts) == 0
}
