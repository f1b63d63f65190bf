package cluster

import "net/http"

func (n *Node) handleStatusPage(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, n.status())
}
