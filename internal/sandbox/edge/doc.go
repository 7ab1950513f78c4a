// Package edge is what every room of the sandbox shares at the HTTP edge,
// and nothing else: the service's error body and its refusals (Refusal,
// BadData, the not-found and conflict answers), JSON answers, request
// bodies read within the sandbox's bounds, the id checks, and a Recorder
// for an answer nobody reads on the wire. It imports no other room.
package edge
