// Package reqlog is the sandbox's request log: the middleware that
// captures each /api/ request and answer (keys and webhook header values
// masked), the writer that stores them in the state in batches of chunks,
// and the reads that list and count them. It imports store and edge.
package reqlog
