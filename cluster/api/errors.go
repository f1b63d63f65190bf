package api

import (
	"errors"
	"fmt"
	"net/http"
)

// Errors of the protocol, which callers test (errors.Is): the
// coordinators answer them with their own statuses, and Client turns
// those back into these values.
var (
	// ErrStale: a completion or release whose fencing token is not the
	// unit's current lease (the lease expired and may be someone
	// else's). 409.
	ErrStale = errors.New("stale lease: the unit is no longer leased with this token")
	// ErrNotRunning: the run is done or failed. 409.
	ErrNotRunning = errors.New("run is not running")
	// ErrNotReady: a completion of a unit leased provisionally, before
	// the units it reads were recorded done (LeaseRequest.Holding); it
	// is accepted once they are: ask again later. 425.
	ErrNotReady = errors.New("the units this unit reads are not done yet")
	// ErrBadOutputs: a completion's outputs do not fit its unit. 400.
	ErrBadOutputs = errors.New("outputs do not fit the unit")
	// ErrUnauthorized is a request the coordinators refused for its
	// token. 401.
	ErrUnauthorized = errors.New("the coordinator refused the token")
	// ErrForbidden is a request the coordinators refused for its token's
	// scope: the token is known, but may not do that. 403.
	ErrForbidden = errors.New("the coordinator refused the token for this request")
)

// ErrorResponse is the body of every error answer.
type ErrorResponse struct {
	Error   string   `json:"error"`
	Missing []string `json:"missing,omitempty"`
}

// MissingError is a completion whose outputs no coordinator has: the
// worker uploads them again. 412.
type MissingError struct{ Missing []string }

func (e *MissingError) Error() string {
	return fmt.Sprintf("%d output blobs are on no coordinator; upload them again", len(e.Missing))
}

// HTTPError is an answer with an error status that no error of this
// package stands for.
type HTTPError struct {
	Code int
	Msg  string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Code, http.StatusText(e.Code), e.Msg)
}
