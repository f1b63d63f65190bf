package deploy_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tierdcli"
)

// kustomization is the part of kustomize's Kustomization the base uses:
// decoding it strictly keeps the base to these fields.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Labels     []struct {
		Pairs            map[string]string `json:"pairs"`
		IncludeTemplates bool              `json:"includeTemplates"`
	} `json:"labels"`
}

// manifests is the base's objects, decoded strictly by kind.
type manifests struct {
	services     []*corev1.Service
	configMaps   []*corev1.ConfigMap
	statefulSets []*appsv1.StatefulSet
	deployments  []*appsv1.Deployment
	pdbs         []*policyv1.PodDisruptionBudget
}

// decode adds the YAML documents of b (one file, or kubectl kustomize's
// output) to m: each decodes into its kind's type from k8s.io/api, and a
// field the type does not have fails.
func (m *manifests) decode(t *testing.T, name string, b []byte) {
	t.Helper()
	for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("%s, document %d: %v", name, i, err)
		}
		var obj any
		switch head.APIVersion + " " + head.Kind {
		case "v1 Service":
			s := &corev1.Service{}
			m.services, obj = append(m.services, s), s
		case "v1 ConfigMap":
			c := &corev1.ConfigMap{}
			m.configMaps, obj = append(m.configMaps, c), c
		case "apps/v1 StatefulSet":
			s := &appsv1.StatefulSet{}
			m.statefulSets, obj = append(m.statefulSets, s), s
		case "apps/v1 Deployment":
			d := &appsv1.Deployment{}
			m.deployments, obj = append(m.deployments, d), d
		case "policy/v1 PodDisruptionBudget":
			p := &policyv1.PodDisruptionBudget{}
			m.pdbs, obj = append(m.pdbs, p), p
		default:
			t.Fatalf("%s, document %d: %s %s is not a kind this test knows: add it", name, i, head.APIVersion, head.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("%s, document %d (%s): %v", name, i, head.Kind, err)
		}
	}
}

const kubeDir = "kubernetes"

// loadBase reads the kustomization and the files it lists, and checks
// that it lists every manifest of the folder.
func loadBase(t *testing.T) *manifests {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(kubeDir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k kustomization
	if err := yaml.UnmarshalStrict(b, &k); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		t.Fatalf("kustomization.yaml: %s %s", k.APIVersion, k.Kind)
	}
	files, _ := filepath.Glob(filepath.Join(kubeDir, "*.yaml"))
	for _, f := range files {
		if base := filepath.Base(f); base != "kustomization.yaml" && !slices.Contains(k.Resources, base) {
			t.Errorf("%s is not in kustomization.yaml's resources", base)
		}
	}
	m := &manifests{}
	for _, r := range k.Resources {
		b, err := os.ReadFile(filepath.Join(kubeDir, r))
		if err != nil {
			t.Fatal(err)
		}
		m.decode(t, r, b)
	}
	return m
}

// TestKubernetesManifests: every manifest decodes strictly into the
// Kubernetes API's types; the coordinators are a StatefulSet of three
// behind a headless Service that publishes them before they are ready,
// started in parallel, bootstrapped from their stable names, with a
// volume each, probes on /readyz and /healthz, a disruption budget of
// one, Prometheus annotations, the token from a Secret file and the store
// from a ConfigMap and a Secret; workers are a Deployment whose threads
// follow the CPU limit; and the command line of every container parses
// with tierd's own flag sets.
func TestKubernetesManifests(t *testing.T) {
	m := loadBase(t)
	if len(m.statefulSets) != 1 || len(m.deployments) != 1 || len(m.pdbs) != 1 || len(m.configMaps) != 1 {
		t.Fatalf("want one StatefulSet, Deployment, PodDisruptionBudget and ConfigMap: %d %d %d %d",
			len(m.statefulSets), len(m.deployments), len(m.pdbs), len(m.configMaps))
	}
	sts, dep, pdb := m.statefulSets[0], m.deployments[0], m.pdbs[0]

	// The coordinators.
	if sts.Spec.Replicas == nil || *sts.Spec.Replicas != 3 {
		t.Errorf("coordinators: replicas %v, want 3", sts.Spec.Replicas)
	}
	if sts.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		t.Errorf("coordinators: podManagementPolicy %q: one pod alone never becomes ready, want Parallel", sts.Spec.PodManagementPolicy)
	}
	headless := m.service(sts.Spec.ServiceName)
	if headless == nil || headless.Spec.ClusterIP != corev1.ClusterIPNone || !headless.Spec.PublishNotReadyAddresses {
		t.Fatalf("coordinators: serviceName %q must be a headless Service that publishes not-ready pods", sts.Spec.ServiceName)
	}
	podLabels := sts.Spec.Template.Labels
	if !selects(headless.Spec.Selector, podLabels) || !selects(sts.Spec.Selector.MatchLabels, podLabels) || !selects(pdb.Spec.Selector.MatchLabels, podLabels) {
		t.Errorf("the Service, StatefulSet and PodDisruptionBudget selectors must select the coordinators' pods %v", podLabels)
	}
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("PodDisruptionBudget: maxUnavailable %v, want 1", pdb.Spec.MaxUnavailable)
	}
	c := onlyContainer(t, "coordinators", sts.Spec.Template.Spec)
	raftPort, httpPort := port(t, c, "raft"), port(t, c, "http")
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" ||
		c.ReadinessProbe.HTTPGet.Port.String() != "http" {
		t.Errorf("coordinators: readiness probe %+v, want GET /readyz on http", c.ReadinessProbe)
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" ||
		c.LivenessProbe.HTTPGet.Port.String() != "http" {
		t.Errorf("coordinators: liveness probe %+v, want GET /healthz on http", c.LivenessProbe)
	}
	ann := sts.Spec.Template.Annotations
	if ann["prometheus.io/scrape"] != "true" || ann["prometheus.io/port"] != fmt.Sprint(httpPort) || ann["prometheus.io/path"] != "/metrics" {
		t.Errorf("coordinators: Prometheus annotations %v", ann)
	}
	flags := m.parse(t, "coordinator", c)
	var want []string
	for i := range 3 {
		name := fmt.Sprintf("%s-%d", sts.Name, i)
		host := name + "." + headless.Name
		want = append(want, fmt.Sprintf("%s=%s:%d=%s:%d", name, host, raftPort, host, httpPort))
	}
	if flags["bootstrap"] != strings.Join(want, ",") {
		t.Errorf("coordinators: --bootstrap=%s\nwant every pod's stable name: %s", flags["bootstrap"], strings.Join(want, ","))
	}
	if flags["node-id"] != "$(POD_NAME)" || envField(c, "POD_NAME") != "metadata.name" {
		t.Errorf("coordinators: --node-id=%s must be the pod's name", flags["node-id"])
	}
	if flags["raft-addr"] != fmt.Sprintf("0.0.0.0:%d", raftPort) || flags["http-addr"] != fmt.Sprintf("0.0.0.0:%d", httpPort) {
		t.Errorf("coordinators: --raft-addr=%s --http-addr=%s: want every interface, on the container's ports (kubectl port-forward dials localhost)",
			flags["raft-addr"], flags["http-addr"])
	}
	// tierd refuses to bootstrap a node whose entry is not where it is
	// reached: each pod's advertised addresses must be its entry.
	for i, entry := range want {
		name := fmt.Sprintf("%s-%d", sts.Name, i)
		got := fmt.Sprintf("%s=%s=%s", name, strings.ReplaceAll(flags["raft-advertise"], "$(POD_NAME)", name),
			strings.ReplaceAll(flags["http-advertise"], "$(POD_NAME)", name))
		if got != entry {
			t.Errorf("coordinators: pod %s advertises %s, but --bootstrap lists it as %s", name, got, entry)
		}
	}
	mountedVolume(t, c, flags["data"], func(name string) bool {
		return slices.ContainsFunc(sts.Spec.VolumeClaimTemplates, func(p corev1.PersistentVolumeClaim) bool { return p.Name == name })
	})
	secretFile(t, "coordinators", sts.Spec.Template.Spec, c, flags["token-file"])
	secretFile(t, "coordinators", sts.Spec.Template.Spec, c, flags["worker-token-file"])
	if flags["store"] != "$(TIERD_STORE)" {
		t.Errorf("coordinators: --store=%s, want it from the ConfigMap", flags["store"])
	}
	if e := env(c, "TIERD_STORE"); e == nil || e.ValueFrom == nil || e.ValueFrom.ConfigMapKeyRef == nil || m.configMap(e.ValueFrom.ConfigMapKeyRef.Name) == nil {
		t.Errorf("coordinators: TIERD_STORE must come from a ConfigMap of the base")
	}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		if e := env(c, k); e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("coordinators: %s must come from a Secret", k)
		}
	}
	nonRoot(t, "coordinators", sts.Spec.Template.Spec)

	// The workers.
	w := onlyContainer(t, "workers", dep.Spec.Template.Spec)
	wflags := m.parse(t, "worker", w)
	var urls []string
	for i := range 3 {
		urls = append(urls, fmt.Sprintf("http://%s-%d.%s:%d", sts.Name, i, headless.Name, httpPort))
	}
	if wflags["coordinators"] != strings.Join(urls, ",") {
		t.Errorf("workers: --coordinators=%s, want %s", wflags["coordinators"], strings.Join(urls, ","))
	}
	if e := env(w, "TIERD_THREADS"); wflags["threads"] != "$(TIERD_THREADS)" || e == nil || e.ValueFrom == nil ||
		e.ValueFrom.ResourceFieldRef == nil || e.ValueFrom.ResourceFieldRef.Resource != "limits.cpu" || w.Resources.Limits.Cpu().IsZero() {
		t.Errorf("workers: --threads=%s must come from the CPU limit (resourceFieldRef limits.cpu)", wflags["threads"])
	}
	mountedVolume(t, w, wflags["data"], func(name string) bool {
		return slices.ContainsFunc(dep.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == name && v.EmptyDir != nil })
	})
	secretFile(t, "workers", dep.Spec.Template.Spec, w, wflags["token-file"])
	// The workers hold the worker token, the key the coordinators read as
	// --worker-token-file, and no other.
	for _, v := range dep.Spec.Template.Spec.Volumes {
		if v.Secret != nil && (len(v.Secret.Items) != 1 || v.Secret.Items[0].Key != filepath.Base(flags["worker-token-file"]) ||
			v.Secret.Items[0].Path != filepath.Base(wflags["token-file"])) {
			t.Errorf("workers: Secret volume %s must hold only the worker token (key %s) as %s", v.Name,
				filepath.Base(flags["worker-token-file"]), filepath.Base(wflags["token-file"]))
		}
	}
	if !selects(dep.Spec.Selector.MatchLabels, dep.Spec.Template.Labels) || selects(headless.Spec.Selector, dep.Spec.Template.Labels) {
		t.Errorf("workers: the Deployment must select its pods, and the coordinators' Service must not")
	}
	nonRoot(t, "workers", dep.Spec.Template.Spec)

	// What kubectl renders from the base decodes the same way.
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kubectl, "kustomize", kubeDir).Output()
		if err != nil {
			t.Fatalf("kubectl kustomize: %v", err)
		}
		rendered := &manifests{}
		rendered.decode(t, "kubectl kustomize", out)
		if len(rendered.statefulSets) != 1 || rendered.statefulSets[0].Spec.Template.Labels["app.kubernetes.io/part-of"] != "tierd" {
			t.Errorf("kubectl kustomize: the labels of the kustomization are not on the pods")
		}
	} else {
		t.Log("kubectl not installed: the base was not rendered with kubectl kustomize")
	}
}

// TestManifestFlagCheck: the check of container command lines refuses a
// flag tierd does not have and a positional argument, so a renamed flag
// breaks TestKubernetesManifests.
func TestManifestFlagCheck(t *testing.T) {
	m := loadBase(t)
	for _, args := range [][]string{
		{"worker", "--thread=2"},
		{"worker", "--threads=two"},
		{"worker", "--threads", "2"},
		{"coordinator", "--node-id=c1", "extra"},
		{"coordinater", "--node-id=c1"},
	} {
		if _, err := m.check(&corev1.Container{Name: "x", Args: args}); err == nil {
			t.Errorf("%q: accepted", args)
		}
	}
}

// parse checks a container's command line with tierd's flag sets and
// returns its flags, each with its value as written ($(VAR) unexpanded).
func (m *manifests) parse(t *testing.T, command string, c *corev1.Container) map[string]string {
	t.Helper()
	if len(c.Command) != 0 {
		t.Errorf("%s: command %q: the image's entrypoint is tierd", c.Name, c.Command)
	}
	if len(c.Args) == 0 || c.Args[0] != command {
		t.Fatalf("%s: args %q: want tierd %s", c.Name, c.Args, command)
	}
	flags, err := m.check(c)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	return flags
}

// check runs a container's args through tierd's own flag sets: every
// argument after the command is one --name=value or a boolean --name, and
// tierd reads them all (with $(VAR) expanded as the kubelet would, from a
// stand-in for each variable's source) before it prints the command's
// help: a flag tierd does not have, or a value its flag cannot hold,
// exits 2.
func (m *manifests) check(c *corev1.Container) (map[string]string, error) {
	flags := map[string]string{}
	for _, a := range c.Args[1:] {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || name == "" {
			return nil, fmt.Errorf("argument %q: want --name=value (tierd %s takes no positional arguments)", a, c.Args[0])
		}
		flags[name] = value
	}
	var args []string
	for _, a := range c.Args {
		args = append(args, m.expand(c, a))
	}
	var stdout, stderr bytes.Buffer
	code := tierdcli.New(games.Default()).Run(&tierdcli.Env{Stdout: &stdout, Stderr: &stderr}, append(args, "-h"))
	if code != 0 || !strings.Contains(stdout.String(), "usage: tierd "+c.Args[0]) {
		return nil, fmt.Errorf("tierd %q: exit %d: %s", args, code, strings.TrimSpace(stderr.String()))
	}
	return flags, nil
}

// expand replaces $(VAR) as the kubelet does, with a value of the kind
// the variable's source gives.
func (m *manifests) expand(c *corev1.Container, s string) string {
	return regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).ReplaceAllStringFunc(s, func(ref string) string {
		e := env(c, ref[2:len(ref)-1])
		switch {
		case e == nil:
			return ref // the kubelet leaves it; tierd will see it
		case e.ValueFrom == nil:
			return e.Value
		case e.ValueFrom.FieldRef != nil:
			return "tierd-coordinator-0"
		case e.ValueFrom.ResourceFieldRef != nil:
			return "2"
		case e.ValueFrom.ConfigMapKeyRef != nil:
			if cm := m.configMap(e.ValueFrom.ConfigMapKeyRef.Name); cm != nil {
				return cm.Data[e.ValueFrom.ConfigMapKeyRef.Key]
			}
		}
		return "x"
	})
}

func (m *manifests) service(name string) *corev1.Service {
	for _, s := range m.services {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func (m *manifests) configMap(name string) *corev1.ConfigMap {
	for _, c := range m.configMaps {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// selects reports whether the selector is not empty and labels has all
// of it.
func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func onlyContainer(t *testing.T, what string, spec corev1.PodSpec) *corev1.Container {
	t.Helper()
	if len(spec.Containers) != 1 {
		t.Fatalf("%s: %d containers, want 1", what, len(spec.Containers))
	}
	return &spec.Containers[0]
}

func port(t *testing.T, c *corev1.Container, name string) int32 {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	t.Fatalf("%s: no port named %s", c.Name, name)
	return 0
}

func env(c *corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

func envField(c *corev1.Container, name string) string {
	if e := env(c, name); e != nil && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
		return e.ValueFrom.FieldRef.FieldPath
	}
	return ""
}

// mountedVolume checks that path is a volume mount of c whose volume ok
// accepts.
func mountedVolume(t *testing.T, c *corev1.Container, path string, ok func(volume string) bool) {
	t.Helper()
	for _, vm := range c.VolumeMounts {
		if vm.MountPath == path && ok(vm.Name) {
			return
		}
	}
	t.Errorf("%s: --data=%s is not the mount of its volume", c.Name, path)
}

// secretFile checks that path is a file of a Secret volume mounted in c.
func secretFile(t *testing.T, what string, spec corev1.PodSpec, c *corev1.Container, path string) {
	t.Helper()
	for _, vm := range c.VolumeMounts {
		if filepath.Dir(path) != vm.MountPath {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name == vm.Name && v.Secret != nil && v.Secret.SecretName != "" {
				return
			}
		}
	}
	t.Errorf("%s: --token-file=%s is not a file of a Secret volume", what, path)
}

func nonRoot(t *testing.T, what string, spec corev1.PodSpec) {
	t.Helper()
	sc := spec.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != 65532 || sc.FSGroup == nil {
		t.Errorf("%s: want runAsNonRoot, runAsUser 65532 (the image's user) and an fsGroup", what)
	}
}
