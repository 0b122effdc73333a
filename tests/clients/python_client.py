#!/usr/bin/python3
"""The official Kubernetes Python client (Debian's python3-kubernetes)
against simcluster: list, paginate, watch (it sends watch=True), patch and
custom objects. Usage: python_client.py KUBECONFIG. Prints one "ok: ..."
line per check and exits non-zero on the first failure."""
import sys

from kubernetes import client, config, watch


def check(cond, what):
    if not cond:
        print("FAILED: " + what)
        sys.exit(1)
    print("ok: " + what)


def main():
    config.load_kube_config(config_file=sys.argv[1])
    core = client.CoreV1Api()
    ns = "pyclient"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    for i in range(5):
        core.create_namespaced_config_map(ns, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="cm-%d" % i, labels={"app": "py", "n": str(i)}),
            data={"k": str(i)}))

    listed = core.list_namespaced_config_map(ns, label_selector="app=py")
    check([c.metadata.name for c in listed.items] == ["cm-%d" % i for i in range(5)], "list with a label selector")

    names, cont, pages = [], None, 0
    while True:
        page = core.list_namespaced_config_map(ns, limit=2, _continue=cont)
        names += [c.metadata.name for c in page.items]
        pages += 1
        cont = page.metadata._continue
        if not cont:
            break
    check(pages == 3 and names == ["cm-%d" % i for i in range(5)], "paginate with limit and continue")

    rv = listed.metadata.resource_version
    core.patch_namespaced_config_map("cm-1", ns, {"data": {"k": "patched"}})
    w = watch.Watch()
    seen = []
    for ev in w.stream(core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=5):
        seen.append((ev["type"], ev["object"].metadata.name, (ev["object"].data or {}).get("k")))
        if ev["type"] == "MODIFIED":
            w.stop()
    check(("MODIFIED", "cm-1", "patched") in seen, "watch (watch=True) sees a strategic-merge patch")

    core.delete_namespaced_config_map("cm-4", ns)
    left = [c.metadata.name for c in core.list_namespaced_config_map(ns).items]
    check(left == ["cm-0", "cm-1", "cm-2", "cm-3"], "delete")

    custom = client.CustomObjectsApi()
    group, version, plural = "monitoring.grafana.com", "v1alpha1", "grafanaagents"
    custom.create_namespaced_custom_object(group, version, ns, plural, {
        "apiVersion": group + "/" + version, "kind": "GrafanaAgent",
        "metadata": {"name": "agent", "labels": {"team": "a"}},
        "spec": {"image": "grafana/agent:v0.39.2"}})
    custom.patch_namespaced_custom_object(group, version, ns, plural, "agent", {"spec": {"logLevel": "debug"}})
    got = custom.get_namespaced_custom_object(group, version, ns, plural, "agent")
    check(got["spec"]["logLevel"] == "debug" and got["spec"]["image"] == "grafana/agent:v0.39.2",
          "custom object create, merge patch and get")
    agents = custom.list_cluster_custom_object(group, version, plural, label_selector="team=a")
    check([a["metadata"]["name"] for a in agents["items"]] == ["agent"], "custom objects listed across namespaces")
    w = watch.Watch()
    events = [ev["type"] for ev in w.stream(custom.list_namespaced_custom_object, group, version, ns, plural,
                                            timeout_seconds=2)]
    check(events == ["ADDED"], "custom object watch from the current state")
    print("passed")


if __name__ == "__main__":
    main()
