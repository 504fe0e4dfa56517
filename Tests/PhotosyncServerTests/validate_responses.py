#!/usr/bin/env python3
"""Validates real responses of the photosync HTTP API against its OpenAPI 3.1 document.

Usage: validate_responses.py OPENAPI.json SAMPLES.json

SAMPLES.json is a list of {"operation": "GET /v1/assets/{id}", "status": 200, "contentType": "...", "body": "..."}
recorded by the Swift tests from a live server. Each body is checked against the schema the document gives for
that operation, status and media type (JSON Schema 2020-12, with python3-jsonschema from Debian); JSON Lines
and Server-Sent Events bodies line by line and event by event (the document's x-photosync-lines and
x-photosync-events). A status the document doesn't list for the operation is an error, and so are a documented
operation and a documented status (but 503 and 507) no sample exercised. Prints one line per problem; exits 1 if there is any.
"""
import json
import sys

from jsonschema import Draft202012Validator, RefResolver


# Statuses no test provokes on purpose: the library unreadable (503), the disk full (507).
UNPROVOKED = {"503", "507"}


def resolve(doc, node):
    while isinstance(node, dict) and "$ref" in node and len(node) == 1:
        parts = node["$ref"].lstrip("#/").split("/")
        node = doc
        for part in parts:
            node = node[part]
    return node


def media(content, content_type):
    base = (content_type or "").split(";")[0].strip().lower()
    if base in content:
        return content[base]
    return content.get(base.split("/")[0] + "/*") or content.get("*/*")


def events(body):
    for block in body.replace("\r\n", "\n").split("\n\n"):
        fields = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if "data" in fields:
            yield fields


def check(doc, sample, validate):
    method, path = sample["operation"].split(" ", 1)
    operation = doc["paths"].get(path, {}).get(method.lower())
    if operation is None:
        return [f"{sample['operation']}: not in the document"]
    response = operation["responses"].get(str(sample["status"]))
    if response is None:
        return [f"{sample['operation']}: status {sample['status']} is not documented"]
    response = resolve(doc, response)
    body = sample["body"]
    if method == "HEAD":
        return [] if body == "" else [f"{sample['operation']} {sample['status']}: a body in an answer to HEAD"]
    content = response.get("content")
    if not content:
        return [] if body == "" else [f"{sample['operation']} {sample['status']}: a body where none is documented"]
    entry = media(content, sample["contentType"])
    if entry is None:
        return [f"{sample['operation']} {sample['status']}: media type {sample['contentType']} is not documented"]
    where = f"{sample['operation']} {sample['status']}"
    if "x-photosync-lines" in entry:
        lines = [line for line in body.split("\n") if line]
        schemas = entry["x-photosync-lines"]
        problems = validate(schemas["first"], json.loads(lines[0]), where + " line 1") if lines else [f"{where}: no lines"]
        for number, line in enumerate(lines[1:], start=2):
            problems += validate(schemas["rest"], json.loads(line), f"{where} line {number}")
        return problems
    if "x-photosync-events" in entry:
        problems = []
        for event in events(body):
            schema = entry["x-photosync-events"].get(event.get("event", "message"))
            if schema is None:
                problems.append(f"{where}: undocumented event {event.get('event')}")
                continue
            data = json.loads(event["data"])
            problems += validate(schema, data, f"{where} event {event.get('id')}")
            if event.get("id") != data.get("token"):
                problems.append(f"{where}: an event's id {event.get('id')} is not its token {data.get('token')}")
        return problems
    if entry.get("schema", {}).get("type") == "string":
        return []
    try:
        value = json.loads(body)
    except ValueError as error:
        return [f"{where}: not JSON ({error})"]
    return validate(entry["schema"], value, where)


def main():
    doc = json.load(open(sys.argv[1]))
    samples = json.load(open(sys.argv[2]))
    resolver = RefResolver.from_schema(doc)
    problems = []
    for name, schema in doc["components"]["schemas"].items():
        try:
            Draft202012Validator.check_schema(schema)
        except Exception as error:  # noqa: BLE001 — report any schema error
            problems.append(f"schema {name}: {error}")

    def validate(schema, value, where):
        validator = Draft202012Validator(schema, resolver=resolver)
        return [f"{where}: {'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
                for error in validator.iter_errors(value)]

    covered = set()
    statuses = set()
    for sample in samples:
        covered.add(sample["operation"])
        statuses.add((sample["operation"], str(sample["status"])))
        problems += check(doc, sample, validate)
    for path, item in doc["paths"].items():
        for method in ("get", "head", "post", "patch", "delete", "put"):
            operation = f"{method.upper()} {path}"
            if method not in item:
                continue
            if operation not in covered:
                problems.append(f"{operation}: documented, but no sample exercised it")
                continue
            for status in item[method]["responses"]:
                if status not in UNPROVOKED and (operation, status) not in statuses:
                    problems.append(f"{operation}: status {status} documented, but no sample exercised it")
    for problem in problems:
        print(problem)
    print(f"{len(samples)} responses checked, {len(problems)} problems", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
