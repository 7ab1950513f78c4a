package cmdutil

import "strings"

// EditDistance is the Levenshtein distance of a and b, in bytes (the words
// it compares, command, flag and status names, are ASCII).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest is the one word of choices that a mistyped word most likely
// meant: the nearest within two edits, or "" when none is, or when two are
// as near.
func Closest(word string, choices []string) string {
	word = strings.ToLower(word)
	best, found, ties := 3, "", 0
	for _, c := range choices {
		switch d := EditDistance(word, c); {
		case d < best:
			best, found, ties = d, c, 0
		case d == best:
			ties++
		}
	}
	if ties > 0 {
		return ""
	}
	return found
}

// DidYouMean is the start of a hint for a mistyped word: "did you mean
// closed? " when one of choices is close to it, else "".
func DidYouMean(word string, choices []string) string {
	if c := Closest(word, choices); c != "" {
		return "did you mean " + c + "? "
	}
	return ""
}
