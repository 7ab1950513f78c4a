package smoke

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

func TestWriteJUnit(t *testing.T) {
	rep := &Report{
		Started:    time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		Duration:   1500 * time.Millisecond,
		Properties: [][2]string{{"base_url", "http://127.0.0.1:8700"}},
		Steps: []*Step{
			{Name: "auth and region", Result: resultPassed, Duration: 12 * time.Millisecond, Detail: "key accepted"},
			{Name: "checkout create", Result: resultFailed, Duration: 1234 * time.Millisecond,
				Message: `POST /api/v2/checkout: 400 bad_data: "amount" <must> be & positive`, Hint: "fix it", ErrorType: "bad_data"},
			{Name: "checkout read", Result: resultSkipped, Message: "skipped: checkout create did not pass"},
		},
	}
	var buf bytes.Buffer
	if err := writeJUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("no XML header:\n%s", buf.String())
	}

	// Read it back the way a CI system would.
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Name      string `xml:"name,attr"`
			Tests     int    `xml:"tests,attr"`
			Failures  int    `xml:"failures,attr"`
			Time      string `xml:"time,attr"`
			Timestamp string `xml:"timestamp,attr"`
			Props     []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Time    string `xml:"time,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	if doc.Tests != 3 || doc.Failures != 1 || doc.Skipped != 1 || len(doc.Suites) != 1 {
		t.Fatalf("totals: %+v", doc)
	}
	s := doc.Suites[0]
	if s.Tests != 3 || s.Failures != 1 || s.Time != "1.500" || s.Timestamp != "2026-11-21T12:00:00" {
		t.Errorf("suite: %+v", s)
	}
	if len(s.Props) != 1 || s.Props[0].Value != "http://127.0.0.1:8700" {
		t.Errorf("properties: %+v", s.Props)
	}
	if s.Cases[0].Time != "0.012" || s.Cases[0].Failure != nil || s.Cases[0].Skipped != nil {
		t.Errorf("passed case: %+v", s.Cases[0])
	}
	f := s.Cases[1].Failure
	if f == nil || f.Message != rep.Steps[1].Message || f.Type != "bad_data" || !strings.Contains(f.Text, "hint: fix it") || s.Cases[1].Time != "1.234" {
		t.Errorf("failed case: %+v", s.Cases[1])
	}
	if s.Cases[2].Skipped == nil || s.Cases[2].Skipped.Message == "" {
		t.Errorf("skipped case: %+v", s.Cases[2])
	}
}
