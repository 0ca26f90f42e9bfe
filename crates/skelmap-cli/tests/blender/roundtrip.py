"""Blender as a client of skelmap's glTF: import one file, describe it, export it again.

    blender -b --factory-startup --python roundtrip.py -- IN.glb OUT.glb REPORT.json

Starts from an empty scene, imports IN with Blender's glTF add-on, writes REPORT (JSON: the
armatures with their bone counts, the mesh objects with their vertex counts and shape keys,
every action with its frame range, the scene's frame range and the Blender version), then
exports the scene as a GLB with animations, skins (every influence) and morph targets to OUT. Any exception
ends Blender with exit status 1 (a Python error in `--python` alone would not).

Written for Blender 3.4 (Debian 12's) and tested by `crates/skelmap-cli/tests/blender.rs`.
"""

import json
import sys
import time
import traceback


def main(argv):
    if len(argv) != 3:
        raise SystemExit("usage: blender -b --python roundtrip.py -- IN.glb OUT.glb REPORT.json")
    source, target, report_path = argv

    # numpy 1.24 removed the `numpy.bool` alias, which the glTF importer of Blender 3.4 still
    # uses (`np.empty(n, dtype=np.bool)` for the smooth flags of the faces). Put it back before
    # the add-on runs.
    import numpy

    numpy.bool = numpy.bool_

    import bpy

    # An empty scene: no default cube, camera or light to count or export.
    bpy.ops.wm.read_factory_settings(use_empty=True)
    for block in (bpy.data.objects, bpy.data.meshes, bpy.data.armatures, bpy.data.actions):
        for item in list(block):
            block.remove(item)

    started = time.monotonic()
    result = bpy.ops.import_scene.gltf(filepath=source)
    if "FINISHED" not in result:
        raise RuntimeError(f"import_scene.gltf returned {result}")
    imported = time.monotonic() - started

    scene = bpy.context.scene
    armatures = []
    meshes = []
    for obj in scene.objects:
        if obj.type == "ARMATURE":
            armatures.append(
                {
                    "name": obj.name,
                    "bones": len(obj.data.bones),
                    "roots": [b.name for b in obj.data.bones if b.parent is None],
                    "action": obj.animation_data.action.name
                    if obj.animation_data and obj.animation_data.action
                    else None,
                    "nla_tracks": len(obj.animation_data.nla_tracks) if obj.animation_data else 0,
                }
            )
        elif obj.type == "MESH":
            keys = obj.data.shape_keys
            meshes.append(
                {
                    "name": obj.name,
                    "vertices": len(obj.data.vertices),
                    "polygons": len(obj.data.polygons),
                    "vertex_groups": len(obj.vertex_groups),
                    "shape_keys": len(keys.key_blocks) if keys else 0,
                    "armature": next(
                        (m.object.name for m in obj.modifiers if m.type == "ARMATURE" and m.object),
                        None,
                    ),
                }
            )
    actions = [
        {
            "name": action.name,
            "frame_range": [float(action.frame_range[0]), float(action.frame_range[1])],
            "fcurves": len(action.fcurves),
            "id_root": action.id_root,
        }
        for action in bpy.data.actions
    ]

    started = time.monotonic()
    result = bpy.ops.export_scene.gltf(
        filepath=target,
        export_format="GLB",
        export_animations=True,
        export_skins=True,
        export_morph=True,
        export_nla_strips=True,
        # Every influence, as skelmap wrote them (`export --all-influences`): with the
        # default top 4 the round trip would measure the cut, not Blender.
        export_all_influences=True,
    )
    if "FINISHED" not in result:
        raise RuntimeError(f"export_scene.gltf returned {result}")
    exported = time.monotonic() - started

    report = {
        "blender": bpy.app.version_string,
        "input": source,
        "output": target,
        "armatures": armatures,
        "meshes": meshes,
        "mesh_vertices": sum(m["vertices"] for m in meshes),
        "actions": actions,
        "scene_frame_range": [scene.frame_start, scene.frame_end],
        "fps": scene.render.fps / scene.render.fps_base,
        "import_seconds": round(imported, 3),
        "export_seconds": round(exported, 3),
    }
    with open(report_path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    args = sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else []
    try:
        main(args)
    except BaseException:  # SystemExit too: every failure must reach the exit status.
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        # os._exit: Blender catches SystemExit raised from a --python script and goes on.
        import os

        os._exit(1)
