package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"sync/atomic"
	"time"
)

// ErrStalled is a request given up for moving no byte.
var ErrStalled = errors.New("stalled")

// Send sends req with hc. With stall > 0 the request is given up
// when it moves no byte for that long: while its body is sent, while the
// answer is awaited, and while the answer's body is read (until it is
// closed). A transfer that goes on, however slowly, is never cut; one
// stuck on a connection that carries nothing (a partition, a peer that
// is gone without a reset) ends. An informational answer ("102
// Processing", which a coordinator sends while it works on a long
// request: see Working) counts as bytes moved.
func Send(hc *http.Client, req *http.Request, stall time.Duration) (*http.Response, error) {
	if stall <= 0 {
		return hc.Do(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	w := &stallWatch{d: stall}
	w.timer = time.AfterFunc(stall, func() { w.hit.Store(true); cancel() })
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		Got1xxResponse: func(int, textproto.MIMEHeader) error { w.timer.Reset(stall); return nil },
	})
	req = req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = &watchedBody{ReadCloser: req.Body, w: w}
	}
	resp, err := hc.Do(req)
	if err != nil {
		w.timer.Stop()
		cancel()
		if w.hit.Load() {
			err = fmt.Errorf("no byte moved for %v: %w (%w)", stall, ErrStalled, err)
		}
		return nil, err
	}
	resp.Body = &watchedBody{ReadCloser: resp.Body, w: w, done: cancel}
	return resp, nil
}

// stallWatch cancels a request whose bodies move no byte for d.
type stallWatch struct {
	d     time.Duration
	timer *time.Timer
	hit   atomic.Bool
}

// watchedBody restarts its watch's timer at every byte read; an answer's
// body stops the watch when it is closed.
type watchedBody struct {
	io.ReadCloser
	w    *stallWatch
	done context.CancelFunc // for an answer's body
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.timer.Reset(b.w.d)
	}
	if err != nil && b.w.hit.Load() {
		err = fmt.Errorf("no byte moved for %v: %w (%w)", b.w.d, ErrStalled, err)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	if b.done != nil {
		b.w.timer.Stop()
		defer b.done()
	}
	return b.ReadCloser.Close()
}

// Working runs work while it sends the client an informational answer,
// "102 Processing", every interval: a client that hears nothing for
// longer (Send) can tell a coordinator it no longer reaches from
// one still busy on its request, and ask another. It returns when work
// does; the caller then writes the final answer.
func Working(w http.ResponseWriter, interval time.Duration, work func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		work()
	}()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			w.WriteHeader(http.StatusProcessing)
		}
	}
}
