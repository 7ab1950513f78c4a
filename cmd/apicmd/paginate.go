package apicmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strconv"
	"time"

	"github.com/bnpl-cli/bnpl/internal/walk"
)

// The service pages its lists two ways: the payments list by offset
// (pagination.limit, offset and total_count in the answer; limit and offset
// in the query), the disputes list by token (next_page_token in the
// answer, page_token in the query). A pager reads each answer, takes out
// its items, and says what to ask for next.
type pager struct {
	// listPath is the request path; its last segment names the list field
	// when an answer holds more than one array.
	listPath string
	query    url.Values

	offset    int      // offset mode: where the next page starts
	seenToken []string // token mode: guards against a service that repeats itself
}

func newPager(listPath string, query url.Values) *pager {
	q := url.Values{}
	for k, vs := range query {
		q[k] = append([]string(nil), vs...)
	}
	p := &pager{listPath: listPath, query: q}
	if v := q.Get("offset"); v != "" {
		p.offset, _ = strconv.Atoi(v)
	}
	return p
}

// page is what one answer gave.
type page struct {
	items []json.RawMessage
	// next is the query of the following page; nil when this was the last.
	next url.Values
	// offset is set when the answer is paged by offset: then the rest of
	// the list can be read several pages at a time (see walk).
	offset *offsetPaging
}

// offsetPaging is the pagination member of an offset-paged answer.
type offsetPaging struct {
	Limit      int  `json:"limit"`
	Offset     *int `json:"offset"`
	TotalCount int  `json:"total_count"`
}

// read takes the items out of one answer. A bare array is all there is; an
// object is paged by its pagination or next_page_token member, and without
// either it is the one and only page.
func (p *pager) read(body []byte) (page, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return page{}, fmt.Errorf("--paginate: the answer is not a JSON array: %w", err)
		}
		return page{items: items}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return page{}, fmt.Errorf("--paginate: the answer is neither a JSON object nor an array")
	}
	items, err := p.listField(obj, trimmed)
	if err != nil {
		return page{}, err
	}
	out := page{items: items}

	if raw, ok := obj["pagination"]; ok {
		var pg offsetPaging
		if err := json.Unmarshal(raw, &pg); err != nil {
			return page{}, fmt.Errorf("--paginate: unreadable pagination: %w", err)
		}
		out.offset = &pg
		if pg.Offset != nil {
			p.offset = *pg.Offset
		}
		p.offset += len(items)
		if len(items) == 0 || (pg.TotalCount > 0 && p.offset >= pg.TotalCount) || (pg.TotalCount == 0 && pg.Limit > 0 && len(items) < pg.Limit) {
			return out, nil
		}
		out.next = p.nextQuery("offset", strconv.Itoa(p.offset))
		return out, nil
	}
	if raw, ok := obj["next_page_token"]; ok {
		var token string
		if string(raw) != "null" {
			if err := json.Unmarshal(raw, &token); err != nil {
				return page{}, fmt.Errorf("--paginate: next_page_token is not a string")
			}
		}
		if token == "" || len(items) == 0 {
			return out, nil
		}
		for _, t := range p.seenToken {
			if t == token {
				return page{}, fmt.Errorf("--paginate: the service gave the page token %q twice; stopping rather than looping", token)
			}
		}
		p.seenToken = append(p.seenToken, token)
		out.next = p.nextQuery("page_token", token)
		return out, nil
	}
	return out, nil
}

func (p *pager) nextQuery(key, value string) url.Values {
	p.query.Set(key, value)
	q := url.Values{}
	for k, vs := range p.query {
		q[k] = append([]string(nil), vs...)
	}
	return q
}

// listField finds the array of items in a page: the member named like the
// path's last segment ("payments" for /api/v2/payments), else the only
// array member. An object with no array is one item itself, so that
// --paginate on a single resource still prints something sensible.
func (p *pager) listField(obj map[string]json.RawMessage, whole []byte) ([]json.RawMessage, error) {
	var arrays []string
	for k, v := range obj {
		if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '[' {
			arrays = append(arrays, k)
		}
	}
	sort.Strings(arrays)
	name := ""
	want := path.Base(p.listPath)
	for _, k := range arrays {
		if k == want {
			name = k
		}
	}
	switch {
	case name != "":
	case len(arrays) == 1:
		name = arrays[0]
	case len(arrays) == 0:
		return []json.RawMessage{json.RawMessage(whole)}, nil
	default:
		return nil, fmt.Errorf("--paginate: the answer holds several lists (%v) and none is named %q", arrays, want)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(obj[name], &items); err != nil {
		return nil, fmt.Errorf("--paginate: %s: %w", name, err)
	}
	return items, nil
}

// offsetPage reads one answer of an offset-paged list for the walker: its
// items, each with its id and creation time when it has them (the whole
// item stands for its id otherwise), and the list's count. It keeps no
// state, so pages read at once may be read at once.
func (p *pager) offsetPage(body []byte) (walk.Page, error) {
	var obj map[string]json.RawMessage
	trimmed := bytes.TrimSpace(body)
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return walk.Page{}, fmt.Errorf("--paginate: a page is not a JSON object")
	}
	raw, ok := obj["pagination"]
	if !ok {
		return walk.Page{}, fmt.Errorf("--paginate: a page has no pagination member")
	}
	var pg offsetPaging
	if err := json.Unmarshal(raw, &pg); err != nil {
		return walk.Page{}, fmt.Errorf("--paginate: unreadable pagination: %w", err)
	}
	items, err := p.listField(obj, trimmed)
	if err != nil {
		return walk.Page{}, err
	}
	return walk.Page{Items: walkItems(items), Total: pg.TotalCount}, nil
}

// walkItems gives each item its id and created_at for the walker.
func walkItems(items []json.RawMessage) []walk.Item {
	out := make([]walk.Item, len(items))
	for i, raw := range items {
		var keys struct {
			ID        any    `json:"id"`
			CreatedAt string `json:"created_at"`
		}
		out[i] = walk.Item{ID: string(raw), Raw: raw}
		if json.Unmarshal(raw, &keys) != nil {
			continue
		}
		if keys.ID != nil {
			out[i].ID = fmt.Sprint(keys.ID)
		}
		if t, err := time.Parse(time.RFC3339Nano, keys.CreatedAt); err == nil {
			out[i].Time = t
		}
	}
	return out
}
