package coordinator

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
)

// Changing the coordinators: a coordinator whose disk is lost is replaced
// by starting a new one (empty data folder, no --bootstrap) and adding it;
// the old one is removed. The leader changes raft's configuration and the
// member list of the state together.

// changeMembers applies a membership change on the leader: raft's
// configuration first, then the state's list.
func (n *Node) changeMembers(req *api.MembersRequest) ([]api.Member, error) {
	members := n.members()
	switch {
	case req.Add != nil && req.Remove == "":
		m := *req.Add
		if m.ID == "" || m.RaftAddr == "" || m.HTTPAddr == "" {
			return nil, fmt.Errorf("%w: a member needs an id, a raft address and an HTTP address", errBadRequest)
		}
		if slices.ContainsFunc(members, func(x api.Member) bool { return x.ID == m.ID }) {
			return nil, fmt.Errorf("%w: %s is a member already", errBadRequest, m.ID)
		}
		if err := n.raft.AddVoter(raft.ServerID(m.ID), raft.ServerAddress(m.RaftAddr), 0, 30*time.Second).Error(); err != nil {
			return nil, fmt.Errorf("adding %s to raft: %w", m.ID, err)
		}
		members = append(members, m)
	case req.Remove != "" && req.Add == nil:
		if req.Remove == n.cfg.ID {
			return nil, fmt.Errorf("%w: the leader cannot remove itself; stop it, and remove it from the next leader", errBadRequest)
		}
		i := slices.IndexFunc(members, func(x api.Member) bool { return x.ID == req.Remove })
		if i < 0 {
			return nil, fmt.Errorf("%w: %s is not a member", errBadRequest, req.Remove)
		}
		if err := n.raft.RemoveServer(raft.ServerID(req.Remove), 0, 30*time.Second).Error(); err != nil {
			return nil, fmt.Errorf("removing %s from raft: %w", req.Remove, err)
		}
		members = slices.Delete(slices.Clone(members), i, i+1)
	default:
		return nil, fmt.Errorf("%w: give one of add and remove", errBadRequest)
	}
	if _, err := n.propose(state.SetMembers(members)); err != nil {
		return nil, err
	}
	n.log.Info("members changed", "members", len(members))
	return members, nil
}

func (n *Node) handleMembers(w http.ResponseWriter, r *http.Request) {
	var req api.MembersRequest
	if !decode(w, r, &req) {
		return
	}
	ms, err := n.changeMembers(&req)
	if err != nil {
		writeError(w, statusFor(err), err)
		return
	}
	writeJSON(w, http.StatusOK, api.MembersResponse{Members: ms})
}
