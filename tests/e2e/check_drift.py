#!/usr/bin/env python3
"""Zero drift between the doors: one corpus through `kgate serve` (kubectl) and `kgate check`.

usage: check_drift.py KGATE CORPUS_DIR WORK_DIR   (KUBECONFIG points at a fresh kgate serve)

The corpus objects are ranked as kgate check ranks them (namespaces, then the kinds that configure admission,
then the rest). Ranked objects are applied to serve for real (they make up the cluster), then every other object
is sent alone with `kubectl apply --dry-run=server -o json`. kgate check gets the whole corpus in one run. For
every object the verdict, code, reason, message and warnings must be equal, and an admitted object must equal
the submitted object with check's patch applied, after dropping what the server sets (uid, resourceVersion,
creationTimestamp, generation, managedFields, status of resources with a status subresource, kubectl's
last-applied annotation, a Service's allocated cluster IPs, the uid in a Job's generated selector) and the random
suffix of the kube-api-access volume."""
import copy, json, os, re, subprocess, sys, time

import yaml

KGATE, CORPUS, WORK = sys.argv[1:4]
REASON_CODE = {"Forbidden": 403, "Invalid": 422, "NotFound": 404, "AlreadyExists": 409, "BadRequest": 400,
               "Conflict": 409, "InternalError": 500}
STATUS_KINDS = {"Pod", "Deployment", "Job", "Service", "Namespace", "ResourceQuota"}
passed = failed = 0


def ok(name):
    global passed
    passed += 1
    print(f"ok   - {name}")


def fail(name, detail):
    global failed
    failed += 1
    print(f"FAIL - {name}\n       {detail}")


def docs():
    out = []
    for fn in sorted(os.listdir(CORPUS)):
        if not fn.endswith((".yaml", ".yml", ".json")):
            continue
        with open(os.path.join(CORPUS, fn)) as f:
            for d in yaml.safe_load_all(f):
                if d is None:
                    continue
                if d.get("kind", "").endswith("List") and isinstance(d.get("items"), list):
                    out.extend(d["items"])
                else:
                    out.append(d)
    return out


def rank(o):
    if o["kind"] == "Namespace":
        return 0
    if o["apiVersion"].startswith("admissionregistration.k8s.io/") or o["kind"] in (
            "LimitRange", "ResourceQuota", "PriorityClass", "ServiceAccount", "StorageClass", "RuntimeClass",
            "IngressClass", "ConfigMap"):
        return 1
    return 2


def strip(o):
    o = copy.deepcopy(o)
    md = o.get("metadata", {})
    for k in ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"):
        md.pop(k, None)
    ann = md.get("annotations", {})
    ann.pop("kubectl.kubernetes.io/last-applied-configuration", None)
    if "annotations" in md and not ann:
        del md["annotations"]
    if o.get("kind") in STATUS_KINDS:
        o.pop("status", None)
    if o.get("kind") == "Service":  # allocated from the service CIDR: differs between any two servers
        for k in ("clusterIP", "clusterIPs"):
            o.get("spec", {}).pop(k, None)
    if o.get("kind") == "Job":  # the generated selector and labels carry the object's uid
        for m in (o.get("spec", {}).get("selector", {}).get("matchLabels", {}),
                  o.get("spec", {}).get("template", {}).get("metadata", {}).get("labels", {})):
            for k in ("controller-uid", "batch.kubernetes.io/controller-uid"):
                if k in m:
                    m[k] = "UID"
    return json.loads(re.sub(r"kube-api-access-[a-z0-9]{5}", "kube-api-access-XXXXX", json.dumps(o)))


def unescape(tok):
    return tok.replace("~1", "/").replace("~0", "~")


def apply_patch(doc, patch):
    doc = copy.deepcopy(doc)
    for op in patch:
        parts = [unescape(p) for p in op["path"].split("/")[1:]]
        if not parts:
            doc = copy.deepcopy(op["value"])
            continue
        parent = doc
        for p in parts[:-1]:
            parent = parent[int(p)] if isinstance(parent, list) else parent[p]
        last = parts[-1]
        if isinstance(parent, list):
            idx = len(parent) if last == "-" else int(last)
            if op["op"] == "add":
                parent.insert(idx, copy.deepcopy(op["value"]))
            elif op["op"] == "remove":
                del parent[idx]
            else:
                parent[idx] = copy.deepcopy(op["value"])
        elif op["op"] == "remove":
            del parent[last]
        else:
            parent[last] = copy.deepcopy(op["value"])
    return doc


def kubectl(args, obj):
    path = os.path.join(WORK, "obj.json")
    with open(path, "w") as f:
        json.dump(obj, f)
    p = subprocess.run(["kubectl", "--request-timeout=20s"] + args + ["-f", path, "-o", "json"],
                       capture_output=True, text=True)
    warnings = [l[len("Warning: "):] for l in p.stderr.splitlines() if l.startswith("Warning: ")]
    if p.returncode == 0:
        return {"allowed": True, "object": json.loads(p.stdout), "warnings": warnings}
    m = re.search(r'Error from server \((\w+)\): error when creating "[^"]*": (.*)', p.stderr, re.S)
    inv = re.search(r'^The (\S+ "[^"]*" is invalid: .*)', p.stderr, re.S | re.M)
    if not m and inv:
        # kubectl prints 422s as "The <kind> "<name>" is invalid: <causes>", rebuilt from the Status' details (for a
        # ValidatingAdmissionPolicy denial that is not the message): take the Status message from the response
        # body kubectl logs at -v=9 (-v=8 cuts long bodies)
        v = subprocess.run(["kubectl", "--request-timeout=20s", "-v=9"] + args + ["-f", path, "-o", "json"],
                           capture_output=True, text=True)
        msg = inv.group(1).strip()
        for body in re.findall(r'"Response Body" body="((?:[^"\\]|\\.)*)"', v.stderr):
            try:
                st = json.loads(json.loads('"' + body + '"'))
            except ValueError:
                continue
            if isinstance(st, dict) and st.get("kind") == "Status" and st.get("reason") == "Invalid":
                msg = st["message"]
        return {"allowed": False, "reason": "Invalid", "code": 422, "message": msg, "warnings": warnings}
    if not m:
        return {"allowed": False, "reason": "?", "code": 0, "message": p.stderr.strip(), "warnings": warnings}
    return {"allowed": False, "reason": m.group(1), "code": REASON_CODE.get(m.group(1), 0),
            "message": m.group(2).strip(), "warnings": warnings}


def wait_cluster(objs):
    """serve's controllers run asynchronously: wait for their objects before the workloads go in (and give the
    policy plugin's informers a moment to see the policies and bindings applied)."""
    if any(o["apiVersion"].startswith("admissionregistration.k8s.io/") for o in objs):
        time.sleep(1)
    for o in objs:
        for _ in range(100):
            if o["kind"] == "Namespace":
                args = ["-n", o["metadata"]["name"], "get", "sa", "default"]
            elif o["kind"] == "ResourceQuota":
                args = ["-n", o["metadata"]["namespace"], "get", "resourcequota", o["metadata"]["name"], "-o",
                        "jsonpath={.status.hard}"]
            else:
                break
            p = subprocess.run(["kubectl"] + args, capture_output=True, text=True)
            if p.returncode == 0 and p.stdout.strip():
                break
            time.sleep(0.1)


def main():
    objs = docs()
    chk = subprocess.run([KGATE, "check", "-o", "json", CORPUS], capture_output=True, text=True)
    if chk.returncode not in (0, 1):
        fail("kgate check ran", chk.stderr)
        return
    results = json.loads(chk.stdout)["results"]
    if len(results) != len(objs):
        fail("same objects", f"check reported {len(results)}, the corpus has {len(objs)}")
        return
    ok(f"kgate check judged the {len(objs)} objects of the corpus")
    order = sorted(range(len(objs)), key=lambda i: rank(objs[i]))
    serve = [None] * len(objs)
    waited = False
    for i in order:
        o = objs[i]
        if rank(o) == 2 and not waited:
            wait_cluster([objs[k] for k in order if rank(objs[k]) < 2])
            waited = True
        serve[i] = kubectl(["apply"] if rank(o) < 2 else ["apply", "--dry-run=server"], o)
    for i, o in enumerate(objs):
        c, s = results[i], serve[i]
        name = f'{o["kind"]}/{o["metadata"]["name"]}'
        want = {k: s.get(k) for k in ("allowed", "warnings")}
        got = {k: c.get(k) for k in ("allowed", "warnings")}
        if not s["allowed"]:
            want.update(code=s["code"], reason=s["reason"], message=s["message"])
            got.update(code=c["code"], reason=c["reason"], message=c["message"])
        if want != got:
            fail(f"{name}: same verdict", f"serve: {json.dumps(want)}\n       check: {json.dumps(got)}")
            continue
        if s["allowed"]:
            mutated = strip(apply_patch(o, c["patch"]))
            served = strip(s["object"])
            if mutated != served:
                fail(f"{name}: same admitted object",
                     f"serve: {json.dumps(served, sort_keys=True)}\n       check: {json.dumps(mutated, sort_keys=True)}")
                continue
            ok(f"{name}: admitted by both, same mutated object")
        else:
            ok(f"{name}: denied by both: {s['code']} {s['message'][:70]}")


main()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)
