package disputes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// attachment is one --attach value: the id of an uploaded file, or a file
// still to upload.
type attachment struct {
	arg  string
	id   string
	file *os.File
}

// openAttachment opens path and applies the upload's rules to its content,
// so that a refused file is known before anything is sent.
func openAttachment(path string) (*os.File, error) {
	// A regular file only: /dev/zero is a device (not an empty file), and
	// a named pipe would block the upload.
	f, err := userfile.OpenRegular("", path)
	if err != nil {
		var ue *userfile.Error
		if errors.As(err, &ue) && ue.Err == nil {
			ue.Advice = "pass a PNG, JPEG or PDF file"
		}
		return nil, err
	}
	if _, err := api.CheckAttachment(path, f); err != nil {
		f.Close()
		var v *api.ValidationError
		if errors.As(err, &v) {
			return nil, cmdutil.Refuse("attachments are PNG, JPEG or PDF files of at most 5 MB, recognised by their content, not their name",
				"%s", strings.TrimPrefix(err.Error(), "attachment: "))
		}
		return nil, err
	}
	return f, nil
}

// prepareAttachments checks every --attach value, files and ids alike,
// before anything is uploaded: one bad file must not leave the others
// uploaded for nothing.
func prepareAttachments(args []string) ([]attachment, error) {
	if len(args) > api.MaxEvidenceAttachments {
		return nil, cmdutil.Refuse("combine pages into one PDF, or send the rest as a second evidence",
			"at most %d attachments per evidence, got %d", api.MaxEvidenceAttachments, len(args))
	}
	atts := make([]attachment, 0, len(args))
	for _, arg := range args {
		_, statErr := os.Stat(arg)
		if statErr != nil && cmdutil.CheckUUID("attachment", arg) == nil {
			atts = append(atts, attachment{arg: arg, id: arg})
			continue
		}
		if errors.Is(statErr, fs.ErrNotExist) {
			closeAttachments(atts)
			return nil, cmdutil.Refuse("pass a PNG, JPEG or PDF file, or an attachment id that `bnpl disputes upload` printed",
				"--attach %q: no such file, and not an attachment id", arg)
		}
		f, err := openAttachment(arg)
		if err != nil {
			closeAttachments(atts)
			return nil, err
		}
		atts = append(atts, attachment{arg: arg, file: f})
	}
	return atts, nil
}

func closeAttachments(atts []attachment) {
	for _, a := range atts {
		if a.file != nil {
			a.file.Close()
		}
	}
}

// uploadAttachments uploads the files among atts and returns every id in
// the order given. When an upload fails, the error names the files that
// were uploaded already, so that a retry can pass their ids instead.
func uploadAttachments(ctx context.Context, client *api.Client, atts []attachment, notice func(string, ...any)) ([]string, error) {
	ids := make([]string, 0, len(atts))
	var done []string
	for _, a := range atts {
		if a.file == nil {
			ids = append(ids, a.id)
			continue
		}
		up, err := client.UploadAttachment(ctx, a.file.Name(), a.file)
		if err != nil {
			if len(done) == 0 {
				return nil, err
			}
			return nil, &partialUpload{err: err, done: done}
		}
		notice("uploaded %s as attachment %s", a.arg, up.ID)
		done = append(done, a.arg+"="+up.ID)
		ids = append(ids, up.ID)
	}
	return ids, nil
}

// partialUpload is a failed upload after others succeeded.
type partialUpload struct {
	err  error
	done []string
}

func (e *partialUpload) Error() string { return e.err.Error() }
func (e *partialUpload) Unwrap() error { return e.err }
func (e *partialUpload) Hint() string {
	return fmt.Sprintf("already uploaded (pass these ids to --attach instead of the files): %s", strings.Join(e.done, ", "))
}
