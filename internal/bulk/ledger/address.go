package ledger

import (
	"net"
	"net/url"
	"strings"
)

// Address is where a shared ledger is, as bnpl's state directory
// remembers the ledger its runs used there: a PostgreSQL ledger's
// postgres://host:port/database with the search_path its tables are
// found by, the same for every machine and user that names it, and never
// its user or password. It is "" for the SQLite ledger, the state
// directory's own.
func (l *Ledger) Address() (string, error) {
	h, ok := l.half.(*pgHalf)
	if !ok {
		return "", nil
	}
	var database, searchPath string
	if err := l.db.QueryRow("SELECT current_database(), current_setting('search_path')").Scan(&database, &searchPath); err != nil {
		return "", l.wrap(err)
	}
	q := url.Values{}
	u := url.URL{Scheme: "postgres", Path: "/" + database}
	host := strings.ToLower(h.host)
	if strings.HasPrefix(host, "/") { // a socket's directory
		q.Set("host", h.host)
		q.Set("port", h.port)
	} else {
		u.Host = net.JoinHostPort(host, h.port)
	}
	paths := strings.Split(searchPath, ",")
	for i := range paths {
		paths[i] = strings.TrimSpace(paths[i])
	}
	q.Set("search_path", strings.Join(paths, ","))
	u.RawQuery = q.Encode()
	return u.String(), nil
}
