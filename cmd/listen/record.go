package listen

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bnpl-cli/bnpl/internal/buildinfo"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/har"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

// `listen --record FILE` adds each notification listen accepts to a
// recording (a HAR file, as bnpl sandbox record writes), so that bnpl
// sandbox verify compares the sandbox's notifications with the service's.

// addRecordFlag registers --record.
func addRecordFlag(fl *pflag.FlagSet, o *Options) {
	fl.StringVar(&o.Record, "record", "", "also add each accepted notification to this recording (a HAR file, as bnpl sandbox record writes)")
}

// startRecording makes the receiver add each notification it accepts to
// the recording, and answers what ends it. A recording made with --redact
// has buyer data replaced here too, alike. The file is opened before
// listen binds its address, so that a file it cannot write stops it
// first; bound is that address once bound, which each notification's URL
// names (a port 0 asked for is the port the system picked).
func (o *Options) startRecording(recv *webhook.Receiver, bound func() string) (func(), error) {
	if o.Record == "" {
		return func() {}, nil
	}
	version, _, _ := buildinfo.Info()
	w, err := har.OpenWriter(o.Record, har.LogMeta{}, version, 0)
	if err != nil {
		return nil, err
	}
	var redactor *har.Redactor
	if w.Meta().Redacted {
		key, err := har.LoadRedactKey(config.StateDir(o.Getenv))
		if err != nil {
			w.Close()
			return nil, err
		}
		redactor = har.NewRedactor(key)
	}
	scrub := har.NewScrubber(redactor, recv.HeaderValue)
	shown := recv.OnNotification
	recv.OnNotification = func(n webhook.Notification) {
		if shown != nil {
			shown(n)
		}
		if err := w.Append(scrub.Entry(notificationExchange(bound(), n))); err != nil {
			fmt.Fprintf(o.IO.ErrOut, "warning: a notification was not added to %s: %v\n", o.Record, err)
		}
	}
	return func() {
		fmt.Fprintf(o.IO.ErrOut, "added %d notification(s) to %s\n", w.Written(), o.Record)
		w.Close()
	}, nil
}

// notificationExchange is a notification as the recording keeps it: the
// sender's POST and listen's answer.
func notificationExchange(addr string, n webhook.Notification) har.Exchange {
	status := http.StatusOK
	if f := n.Forward; f != nil && f.Error != "" {
		status = http.StatusBadGateway
	} else if f != nil && (f.Status < 200 || f.Status > 299) {
		status = f.Status
	}
	h := n.Header
	if h == nil {
		h = http.Header{}
	}
	path := n.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return har.Exchange{Kind: har.KindNotification, Started: n.ReceivedAt, Method: http.MethodPost,
		URL: "http://" + addr + path, ReqHeader: h, ReqBody: n.Payload, ReqSize: int64(len(n.Payload)),
		Status: status, RespHeader: http.Header{}}
}
