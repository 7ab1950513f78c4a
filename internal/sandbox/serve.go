package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/bnpl-cli/bnpl/internal/httpserve"
	"github.com/bnpl-cli/bnpl/internal/sandbox/extras"
	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
)

// ServeOptions configure Serve.
type ServeOptions struct {
	AEAddr string // default 127.0.0.1:8700
	SAAddr string // default 127.0.0.1:8701
	// Limits bound each listener's server (see DefaultServeLimits); zero
	// fields take the defaults.
	Limits httpserve.Limits
	// Prepare runs on the opened state before the sandbox accepts a
	// request (a --seed-file); its error stops Serve.
	Prepare func(*Sandbox) error
	// Instance names this run in /_sandbox/health (extras.Health).
	Instance string
	// Ready, when set, hears where the sandbox answers once the listeners
	// are bound, the state is open, Prepare is done and requests are
	// answered (bnpl sandbox serve --ready-file); its error stops Serve.
	Ready func(Listening) error
	Options
}

// Listening says where a served sandbox answers, per region ("ae", "sa").
type Listening struct {
	// URLs are the base URLs clients should use: the public URL when one
	// was given, else the listener's address (with the first allowed host
	// name in place of a wildcard address, else loopback).
	URLs map[string]string
	// LocalURLs reach the listeners from this machine: loopback for a
	// wildcard address.
	LocalURLs map[string]string
	// Addrs are the addresses bound, ports resolved (":0" asked).
	Addrs map[string]string
	// Wildcard lists the regions whose listener takes every address.
	Wildcard []string
}

// DefaultServeLimits bound each regional listener: the httpserve defaults
// (a request's header within 5s, a request, body included, within 30s; an
// idle connection is closed after 30s; one client, an IP address or an
// IPv6 /64, holds at most a quarter of the connections), at most 512
// connections, so 128 of one client, and 32 requests reading a body at
// once. A body is at most
// 1 MiB (an attachment 5 MiB), so bodies in flight hold at most 160 MiB
// per listener whatever clients do; and one client holding slow
// connections leaves the others (the health check among them) room.
var DefaultServeLimits = httpserve.Limits{MaxConns: 512, MaxBodies: 32}

// Serve runs the sandbox on one listener per region until ctx is done or
// the process is asked to stop (SIGTERM: a supervisor, a container
// stopping, a test suite ending), after printing the base URLs and the
// merchants with their keys to out (sandbox keys move no money; printing
// them is the point). The listeners are bound first (the links need their
// addresses) and serve once the state is open, answering 503 while the
// seed file (Prepare) loads; a request that comes in the moments after,
// before the sandbox is announced, waits.
//
// Stopping is clean whichever way it comes: the server gives up its lease
// on the state first, so that a command run from then on delivers what it
// records itself, then answers the requests under way, delivers what is
// due (at most two seconds) and hands its other claims back.
func Serve(ctx context.Context, o ServeOptions, out io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	ls, err := listen(o)
	if err != nil {
		return err
	}
	opts := o.Options
	opts.PublicURLs = ls.public
	opts.Serve = true
	sb, err := New(opts)
	if err != nil {
		ls.close()
		return err
	}
	defer sb.Close()
	sb.Local.Instance = o.Instance
	gate := newStartingGate(o.Instance, o.StatePath != "")
	run := startServers(o.Limits, sb, ls, gate)
	if o.Prepare != nil {
		gate.seed(true)
		err := o.Prepare(sb)
		gate.seed(false)
		if err != nil {
			run.shutdown()
			ls.close()
			return err
		}
	}
	// Announced before the banner: a command run once the sandbox says
	// it is running leaves its deliveries to it.
	keep := sb.Outbox.Announce(ls.public["ae"])
	announceCtx, stopAnnounce := context.WithCancel(context.Background())
	announced := make(chan struct{})
	go func() {
		defer close(announced)
		keep(announceCtx)
	}()
	giveUp := sync.OnceFunc(func() {
		stopAnnounce()
		<-announced
	})
	defer giveUp()
	gate.open()
	printBanner(ctx, out, o, sb, ls.where)
	if o.Ready != nil {
		if err := o.Ready(ls.where); err != nil {
			giveUp()
			run.shutdown()
			ls.close()
			return err
		}
	}
	return run.until(ctx, giveUp)
}

// listening are the regions' listeners, with their base URLs: public
// for the links the sandbox writes, where for the banner and Ready.
type listening struct {
	regions   []string
	listeners []net.Listener
	public    map[string]string
	where     Listening
}

func (ls *listening) close() {
	for _, l := range ls.listeners {
		l.Close()
	}
}

// listen opens the regions' listeners (default 127.0.0.1:8700 and :8701).
func listen(o ServeOptions) (*listening, error) {
	addrs := []struct{ region, addr string }{{"ae", o.AEAddr}, {"sa", o.SAAddr}}
	if addrs[0].addr == "" {
		addrs[0].addr = "127.0.0.1:8700"
	}
	if addrs[1].addr == "" {
		addrs[1].addr = "127.0.0.1:8701"
	}
	ls := &listening{public: map[string]string{}, where: Listening{
		URLs: map[string]string{}, LocalURLs: map[string]string{}, Addrs: map[string]string{}}}
	for region, u := range o.PublicURLs {
		ls.public[region] = strings.TrimRight(u, "/")
	}
	for _, a := range addrs {
		l, err := net.Listen("tcp", a.addr)
		if err != nil {
			ls.close()
			return nil, fmt.Errorf("sandbox %s listener: %w", a.region, err)
		}
		ls.regions = append(ls.regions, a.region)
		ls.listeners = append(ls.listeners, l)
		ls.note(a.region, wildcardAsAsked(l.Addr(), a.addr), o.AllowHosts)
	}
	return ls, nil
}

// note records where region's listener at addr answers. On a wildcard
// address (0.0.0.0 in a container) no one address reaches every client:
// without a public URL the links follow the Host of each request, and the
// URL shown names the first allowed host (the service name other
// containers use), else loopback.
func (ls *listening) note(region string, addr net.Addr, allowHosts []string) {
	local := strings.TrimSuffix(extras.DashboardURL(addr), "/_sandbox/")
	w := &ls.where
	w.Addrs[region], w.LocalURLs[region] = addr.String(), local
	w.URLs[region] = ls.public[region]
	wildcard := unspecified(addr)
	if wildcard {
		w.Wildcard = append(w.Wildcard, region)
	}
	if w.URLs[region] == "" {
		w.URLs[region] = local
		if _, port, err := net.SplitHostPort(addr.String()); err == nil && wildcard && len(allowHosts) > 0 {
			w.URLs[region] = "http://" + net.JoinHostPort(strings.ToLower(allowHosts[0]), port)
		}
	}
	if ls.public[region] == "" && !wildcard {
		ls.public[region] = "http://" + addr.String()
	}
}

// BannerValueColumn is the column where the values of the banner's lines
// start, after their labels ("  dashboard         ").
const BannerValueColumn = 20

// printBanner says where the sandbox answers, what it injects, and the
// merchants with their keys.
//
// Its values start at BannerValueColumn, so that a terminal too narrow for
// a line goes on with it there (output.WrapWriter).
func printBanner(ctx context.Context, out io.Writer, o ServeOptions, sb *Sandbox, where Listening) {
	shown := where.URLs
	fmt.Fprintf(out, "bnpl sandbox is running\n")
	fmt.Fprintf(out, "  ae (UAE, Kuwait)  %s\n", shown["ae"])
	fmt.Fprintf(out, "  sa (KSA)          %s\n", shown["sa"])
	fmt.Fprintf(out, "  dashboard         %s/_sandbox/  %s/_sandbox/\n", shown["ae"], shown["sa"])
	printWildcard(out, o, where)
	if o.Instance != "" {
		fmt.Fprintf(out, "  instance          %s\n", o.Instance)
	}
	if o.StatePath != "" {
		fmt.Fprintf(out, "  state             %s\n", o.StatePath)
	} else {
		fmt.Fprintf(out, "  state             in memory\n")
	}
	if sb.faults != nil {
		// The seed is printed even when picked at random, so that a run
		// whose faults found a bug can be repeated with --seed.
		fmt.Fprintf(out, "  faults            %s (seed %d)\n", sb.faults.Spec, sb.faults.Seed)
	}
	if sb.FixedClock() {
		if at, err := sb.Now(ctx); err == nil {
			fmt.Fprintf(out, "  clock             %s, fixed: +%s per write request\n", at.Format(time.RFC3339Nano), ClockStep)
		}
	}
	fmt.Fprintf(out, "  webhooks          %s\n", sb.DeliveryRules())
	if sb.limits != nil {
		fmt.Fprintf(out, "  rate limit        test keys: %d checkouts per %s, %d other requests per second\n", middleware.SessionLimit, middleware.SessionWindow, middleware.CallLimit)
	}
	fmt.Fprintf(out, "\n")
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MERCHANT\tREGION\tCURRENCY\tTEST KEY\tLIVE KEY")
	for _, m := range sb.Merchants() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Code, m.Region, m.Currency, m.TestKey, m.LiveKey)
	}
	tw.Flush()
}

// printWildcard says, for listeners on every address (a container), how
// each is reached: from the machine itself, from a container's host (the
// port published with -p, which the sandbox cannot see), and what the
// links it hands out name when no public URL was given.
func printWildcard(out io.Writer, o ServeOptions, where Listening) {
	if len(where.Wildcard) == 0 {
		return
	}
	fmt.Fprintf(out, "  listening on      %s (every address)\n", strings.Join(mapValues(where.Addrs, where.Wildcard), "  "))
	fmt.Fprintf(out, "  from here         %s\n", strings.Join(mapValues(where.LocalURLs, where.Wildcard), "  "))
	var published []string
	for _, region := range where.Wildcard {
		if _, port, err := net.SplitHostPort(where.Addrs[region]); err == nil {
			published = append(published, fmt.Sprintf("http://localhost:HOSTPORT for -p 127.0.0.1:HOSTPORT:%s (%s)", port, region))
		}
	}
	fmt.Fprintf(out, "  from the host     %s, in a container\n", strings.Join(published, ", "))
	var unset []string
	for _, region := range where.Wildcard {
		if o.PublicURLs[region] == "" {
			unset = append(unset, region)
		}
	}
	if len(unset) > 0 {
		fmt.Fprintf(out, "  links             follow each request's Host (%s): no public URL set (--public-url, env BNPL_SANDBOX_PUBLIC_URL)\n", strings.Join(unset, ", "))
	}
}

// servers are the regions' servers, each on its listener.
type servers struct {
	list []*http.Server
	errs chan error
}

// startServers serves each region on its listener within lim, behind
// gate: until it opens, every request is answered 503 (serve_gate.go).
func startServers(lim httpserve.Limits, sb *Sandbox, ls *listening, gate *startingGate) *servers {
	if lim.MaxConns == 0 {
		lim.MaxConns = DefaultServeLimits.MaxConns
	}
	if lim.MaxBodies == 0 {
		lim.MaxBodies = DefaultServeLimits.MaxBodies
	}
	run := &servers{list: make([]*http.Server, len(ls.listeners)), errs: make(chan error, len(ls.listeners))}
	for i, l := range ls.listeners {
		run.list[i] = lim.Server(gate.wrap(sb.Handler(ls.regions[i])))
		go func(srv *http.Server, l net.Listener) {
			run.errs <- srv.Serve(l)
		}(run.list[i], lim.Listener(l))
	}
	return run
}

// until serves until ctx ends or a server fails, then calls stopping and
// shuts the servers down.
func (run *servers) until(ctx context.Context, stopping func()) error {
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-run.errs:
	}
	stopping()
	run.shutdown()
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return nil
}

// shutdown answers the requests under way (at most 5 seconds) and closes
// the listeners.
func (run *servers) shutdown() {
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range run.list {
		_ = srv.Shutdown(shutdownCtx)
	}
}

// wildcardAsAsked is the address bound, with an IPv4 wildcard kept as
// asked: Go binds 0.0.0.0 (or no host) as the dual-stack [::], which
// 127.0.0.1 reaches as well as ::1.
func wildcardAsAsked(bound net.Addr, asked string) net.Addr {
	tcp, ok := bound.(*net.TCPAddr)
	host, _, err := net.SplitHostPort(asked)
	if !ok || err != nil || !tcp.IP.IsUnspecified() || strings.Contains(host, ":") {
		return bound
	}
	return &net.TCPAddr{IP: net.IPv4zero, Port: tcp.Port}
}

// mapValues are m's values for keys, in that order.
func mapValues(m map[string]string, keys []string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out
}

// unspecified tells whether addr is a wildcard address (0.0.0.0, ::).
func unspecified(addr net.Addr) bool {
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}
