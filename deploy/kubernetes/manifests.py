"""The parts of the manifests' check that no validator does (deploy/kubernetes/validate.sh).

    manifests.py nads OUT FILE...        each NetworkAttachmentDefinition to OUT/NAME.json, for
                                         check-jsonschema; its spec.config parsed as JSON, with
                                         a CNI `type` this directory uses
    manifests.py configmaps OUT FILE...  each ConfigMap's upfbench files to OUT/NAME (the system
                                         files, profiles and reflector files, for `upfbench
                                         validate`), `KIND PATH` a line on stdout
    manifests.py qos FILE...             every pod that takes hugepages or a device is of
                                         Guaranteed QoS with whole CPUs (requests = limits, an
                                         integer `cpu`), as the static CPU manager needs to give
                                         it CPUs of its own, which `cores: auto` takes
    manifests.py kustomization DIR       every resource listed exists, every manifest but the
                                         self-test's generator Job is listed

Errors go to stderr as `FILE: what`, and the exit status is 1. Standard library and PyYAML
(which kubernetes-validate brings into its venv) only.
"""

import json
import pathlib
import sys

import yaml

# The CNI plugins these manifests attach with: SR-IOV VFs, a whole NIC, and N4's macvlan (or
# ipvlan).
CNI_TYPES = {"sriov", "host-device", "macvlan", "ipvlan"}
# The manifests that `kubectl apply -k` does not take (see kustomization.yaml).
NOT_IN_KUSTOMIZATION = {"generator-job.yaml"}


def documents(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def nads(out, files):
    errors = []
    for path in files:
        for doc in documents(path):
            if doc.get("kind") != "NetworkAttachmentDefinition":
                continue
            name = (doc.get("metadata") or {}).get("name", "unnamed")
            where = f"{path}: {name}"
            (pathlib.Path(out) / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")
            config = (doc.get("spec") or {}).get("config")
            if not isinstance(config, str):
                errors.append(f"{where}: spec.config: a JSON-formatted CNI configuration is needed")
                continue
            try:
                cni = json.loads(config)
            except json.JSONDecodeError as e:
                errors.append(f"{where}: spec.config is not JSON: {e}")
                continue
            if not isinstance(cni, dict):
                errors.append(f"{where}: spec.config: a CNI configuration is a JSON object")
                continue
            kind = cni.get("type")
            if kind not in CNI_TYPES:
                errors.append(
                    f"{where}: spec.config: CNI type {kind!r}: expected one of "
                    f"{', '.join(sorted(CNI_TYPES))}"
                )
            if cni.get("name") != name:
                errors.append(
                    f"{where}: spec.config: CNI name {cni.get('name')!r} is not the attachment's"
                )
            if "cniVersion" not in cni:
                errors.append(f"{where}: spec.config: no cniVersion")
            resource = (doc["metadata"].get("annotations") or {}).get(
                "k8s.v1.cni.cncf.io/resourceName"
            )
            if kind == "sriov" and not resource:
                errors.append(
                    f"{where}: an sriov attachment needs the annotation "
                    "k8s.v1.cni.cncf.io/resourceName (Multus passes the VF's device to the CNI)"
                )
    return errors


def configmaps(out, files):
    errors = []
    for path in files:
        for doc in documents(path):
            if doc.get("kind") != "ConfigMap":
                continue
            for key, text in (doc.get("data") or {}).items():
                if not key.endswith(".yaml"):
                    continue
                kind = (yaml.safe_load(text) or {}).get("kind")
                if kind == "cluster":
                    # No loader yet (docs/kubernetes.md).
                    continue
                if kind not in ("system", "profile", "reflector"):
                    errors.append(f"{path}: {key}: no `kind:` of an upfbench file")
                    continue
                target = pathlib.Path(out) / key
                target.write_text(text, encoding="utf-8")
                print(kind, target)
    return errors


def pod_templates(doc):
    """The pod spec of a workload (Deployment, StatefulSet, Job, Pod)."""
    spec = doc.get("spec") or {}
    if doc.get("kind") == "Pod":
        return spec
    return (spec.get("template") or {}).get("spec")


def qos(files):
    errors = []
    for path in files:
        for doc in documents(path):
            pod = pod_templates(doc)
            if not pod:
                continue
            name = f"{path}: {doc['kind']} {(doc.get('metadata') or {}).get('name')}"
            for c in pod.get("containers") or []:
                resources = c.get("resources") or {}
                requests = resources.get("requests") or {}
                limits = resources.get("limits") or {}
                dataplane = any(r.startswith("hugepages-") or "/" in r for r in requests)
                if not dataplane:
                    continue
                where = f"{name}: container {c.get('name')}"
                if requests != limits:
                    errors.append(
                        f"{where}: requests differ from limits: not Guaranteed QoS, so the "
                        "static CPU manager gives it no CPUs of its own"
                    )
                cpu = str(requests.get("cpu", ""))
                if not cpu.isdigit() or int(cpu) < 2:
                    errors.append(
                        f"{where}: cpu {cpu!r}: a whole number of CPUs, at least 2 (the main "
                        "lcore and a worker), for the static CPU manager to give it CPUs of "
                        "its own"
                    )
    return errors


def kustomization(directory):
    directory = pathlib.Path(directory)
    listed = documents(directory / "kustomization.yaml")[0].get("resources", [])
    errors = [
        f"{directory}/kustomization.yaml: {r} does not exist"
        for r in listed
        if not (directory / r).exists()
    ]
    for path in sorted(directory.glob("*.yaml")):
        name = path.name
        if name != "kustomization.yaml" and name not in listed and name not in NOT_IN_KUSTOMIZATION:
            errors.append(f"{directory}/kustomization.yaml: {name} is not among its resources")
    return errors


def main(argv):
    command, rest = argv[1], argv[2:]
    if command == "nads":
        errors = nads(rest[0], rest[1:])
    elif command == "configmaps":
        errors = configmaps(rest[0], rest[1:])
    elif command == "qos":
        errors = qos(rest)
    elif command == "kustomization":
        errors = kustomization(rest[0])
    else:
        sys.exit(f"manifests.py: unknown command {command}")
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
