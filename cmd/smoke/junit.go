package smoke

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// The JUnit XML that CI systems (GitHub Actions reporters, GitLab, Jenkins,
// CircleCI) read: testsuites > testsuite > testcase, times in seconds, a
// failure element with a one-line message attribute and the full text as
// its body, and skipped for the steps that could not run.

// junitCounts are the attributes both testsuites and testsuite carry.
type junitCounts struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	junitCounts
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// writeJUnit writes the report of one smoke run as one test suite.
//
// Everything in it may quote an answer of the service; the file is kept
// by CI for anyone to read, so each text goes through the masker again.
func writeJUnit(w io.Writer, rep *Report) error {
	var m *secret.Masker
	suite := junitSuite{
		junitCounts: junitCounts{Name: "bnpl smoke", Time: seconds(rep.Duration)},
		Timestamp:   rep.Started.UTC().Format("2006-01-02T15:04:05"),
	}
	for _, p := range rep.Properties {
		suite.Properties = append(suite.Properties, junitProperty{Name: p[0], Value: m.Text(p[1])})
	}
	for _, s := range rep.Steps {
		c := junitCase{Name: m.Text(s.Name), Classname: "bnpl.smoke", Time: seconds(s.Duration)}
		switch s.Result {
		case resultFailed:
			suite.Failures++
			c.Failure = &junitFailure{Message: m.Text(s.Message), Type: m.Text(s.ErrorType), Text: m.Text(s.failureText())}
		case resultSkipped:
			suite.Skipped++
			c.Skipped = &junitSkipped{Message: m.Text(s.Message)}
		default:
			c.SystemOut = m.Text(s.Detail)
		}
		suite.Tests++
		suite.Cases = append(suite.Cases, c)
	}
	doc := junitSuites{junitCounts: suite.junitCounts, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
