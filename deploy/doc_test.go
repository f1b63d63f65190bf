// Package deploy_test checks the deployment files of this folder: the
// container image (Containerfile) is built with podman and runs tierd,
// and the Kubernetes manifests (kubernetes/) decode strictly into the
// Kubernetes API's types and run tierd with flags tierd has. The folder
// has no Go code of its own: its Kubernetes dependencies stay in tests.
package deploy_test
