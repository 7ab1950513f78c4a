package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/google/uuid"
)

// Attachment upload: multipart/form-data with one file field
// "attachment", PNG, JPEG or PDF by its first bytes (wire.AttachmentType,
// the sniffer the CLI uses), at most wire.MaxAttachmentBytes (5 MiB). Any
// refusal is 400 bad_data "bad_request". The bytes are kept with their
// hash, for the merchant that uploaded them.

var errUploadRefused = badData("bad_request")

// multipartSlack is what the multipart framing may add to the file.
const multipartSlack = 64 << 10

func (s *Service) handleUploadAttachment(w http.ResponseWriter, r *http.Request, c caller) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" {
		writeError(w, errUploadRefused)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, wire.MaxAttachmentBytes+multipartSlack)
	mr, err := r.MultipartReader()
	if err != nil {
		writeError(w, errUploadRefused)
		return
	}
	var data []byte
	found := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			writeError(w, errUploadRefused)
			return
		}
		if part.FormName() != "attachment" || found {
			_, _ = io.Copy(io.Discard, part)
			continue
		}
		data, err = io.ReadAll(io.LimitReader(part, wire.MaxAttachmentBytes+1))
		if err != nil {
			writeError(w, errUploadRefused)
			return
		}
		found = true
		if len(data) > wire.MaxAttachmentBytes {
			writeError(w, errUploadRefused)
			return
		}
	}
	if !found || len(data) == 0 {
		writeError(w, errUploadRefused)
		return
	}
	kind, ok := wire.AttachmentType(data[:min(len(data), 512)])
	if !ok {
		writeError(w, errUploadRefused)
		return
	}
	sum := sha256.Sum256(data)
	id := uuid.NewString()
	if err := s.storeAttachment(r.Context(), id, c.merchant.Code, kind, data, hex.EncodeToString(sum[:])); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.AttachmentUpload{ID: id})
}

// checkAttachmentIDs tells whether every id is an attachment the merchant
// uploaded; q is the transaction when there is one.
func checkAttachmentIDs(ctx context.Context, q querier, merchant string, ids []string) (bool, error) {
	for _, id := range ids {
		if !validUUID(id) {
			return false, nil
		}
		var n int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM dispute_attachments WHERE id = ? AND merchant_code = ?`,
			strings.ToLower(id), merchant).Scan(&n); err != nil {
			return false, err
		}
		if n == 0 {
			return false, nil
		}
	}
	return true, nil
}

// canonicalIDs copies ids, already checked, in lower case: the case they
// are stored and shown in, whatever case the client wrote them in.
func canonicalIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, strings.ToLower(id))
	}
	return out
}
