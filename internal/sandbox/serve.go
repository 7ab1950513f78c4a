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
	Options
}

// DefaultServeLimits bound each regional listener: the httpserve timeouts
// (a request, body included, must arrive within 30s; an idle connection is
// closed after 30s), at most 512 connections, and 32 requests reading a
// body at once. A body is at most 1 MiB (an attachment 5 MiB), so bodies
// in flight hold at most 160 MiB per listener whatever clients do.
var DefaultServeLimits = httpserve.Limits{MaxConns: 512, MaxBodies: 32}

// Serve runs the sandbox on one listener per region until ctx is done or
// the process is asked to stop (SIGTERM: a supervisor, a container
// stopping, a test suite ending), after printing the base URLs and the
// merchants with their keys to out (sandbox keys move no money; printing
// them is the point). The listeners are bound first (the links need their
// addresses) but accept requests only once the state is open: a client
// that connects earlier waits to be served.
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
	if o.Prepare != nil {
		if err := o.Prepare(sb); err != nil {
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
	printBanner(ctx, out, o, sb, ls.shown)
	return serveUntilDone(ctx, o.Limits, sb, ls, giveUp)
}

// listening are the regions' listeners, with their base URLs: public
// for the links the sandbox writes, shown for the banner.
type listening struct {
	regions   []string
	listeners []net.Listener
	public    map[string]string
	shown     map[string]string // the public URL, else where this machine reaches it
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
	ls := &listening{public: map[string]string{}, shown: map[string]string{}}
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
		ls.shown[a.region] = ls.public[a.region]
		if ls.shown[a.region] == "" {
			ls.shown[a.region] = strings.TrimSuffix(extras.DashboardURL(l.Addr()), "/_sandbox/")
		}
		// On a wildcard address (0.0.0.0 in a container) no one address
		// reaches every client: without a public URL the links follow
		// the Host of each request.
		if ls.public[a.region] == "" && !unspecified(l.Addr()) {
			ls.public[a.region] = "http://" + l.Addr().String()
		}
	}
	return ls, nil
}

// printBanner says where the sandbox answers, what it injects, and the
// merchants with their keys.
func printBanner(ctx context.Context, out io.Writer, o ServeOptions, sb *Sandbox, shown map[string]string) {
	fmt.Fprintf(out, "bnpl sandbox is running\n")
	fmt.Fprintf(out, "  ae (UAE, Kuwait)  %s\n", shown["ae"])
	fmt.Fprintf(out, "  sa (KSA)          %s\n", shown["sa"])
	fmt.Fprintf(out, "  dashboard         %s/_sandbox/  %s/_sandbox/\n", shown["ae"], shown["sa"])
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

// serveUntilDone serves each region on its listener within lim until ctx
// ends or a server fails, then calls stopping and shuts them down.
func serveUntilDone(ctx context.Context, lim httpserve.Limits, sb *Sandbox, ls *listening, stopping func()) error {
	if lim.MaxConns == 0 {
		lim.MaxConns = DefaultServeLimits.MaxConns
	}
	if lim.MaxBodies == 0 {
		lim.MaxBodies = DefaultServeLimits.MaxBodies
	}
	servers := make([]*http.Server, len(ls.listeners))
	errs := make(chan error, len(ls.listeners))
	for i, l := range ls.listeners {
		servers[i] = lim.Server(sb.Handler(ls.regions[i]))
		go func(srv *http.Server, l net.Listener) {
			errs <- srv.Serve(l)
		}(servers[i], lim.Listener(l))
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errs:
	}
	stopping()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range servers {
		_ = srv.Shutdown(shutdownCtx)
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return nil
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
