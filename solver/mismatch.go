package solver

import "errors"

// ErrSymmetryMismatch is returned when a run folder is opened with the
// other Symmetry setting than the one it was made with.
var ErrSymmetryMismatch = errors.New("symmetry setting differs from the run folder's")

// symmetryMismatch explains a refused resume.
func symmetryMismatch(dir string, folderSymmetric bool) error {
	if folderSymmetric {
		return mismatchError(dir + " holds a symmetric run (canonical positions only): resume it with --symmetry, or use another folder for a full run")
	}
	return mismatchError(dir + " holds a full run (every position): resume it without --symmetry, or use another folder for a symmetric run")
}

// mismatchError is ErrSymmetryMismatch with its explanation.
type mismatchError string

func (e mismatchError) Error() string        { return string(e) }
func (e mismatchError) Is(target error) bool { return target == ErrSymmetryMismatch }
