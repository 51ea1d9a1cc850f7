"""Imports a glTF file into an empty Blender scene and prints what Blender made of it, as one JSON line
prefixed with RIGWRIGHT_JSON: armature bones, mesh vertex groups, actions, and every vertex of the skinned mesh
at rest and posed at the given frames of the given action. Coordinates are converted back from Blender's Z-up
(x, -z, y) to glTF's Y-up (x, y, z), so that they compare directly with the file.

With --export OUT.glb, Blender then writes the scene back out as GLB (as an artist's round trip would), so
that Rigwright's importer can be checked on a file Blender wrote.

Usage: blender -b --factory-startup --python inspect-gltf.py -- FILE.glb ACTION [--export OUT.glb] FRAME [FRAME ...]
Frames are counted at 30 fps from the start of the clip (frame f = time f / 30 s).
"""
import json
import sys

import bpy
import numpy

# Blender 3.4's glTF importer uses numpy.bool, which numpy 1.24 (Debian 12) removed; it meant the builtin.
if "bool" not in numpy.__dict__:
    numpy.bool = bool

args = sys.argv[sys.argv.index("--") + 1:]
export_path = None
if "--export" in args:
    at = args.index("--export")
    export_path = args[at + 1]
    del args[at:at + 2]
path, action_name, frames = args[0], args[1], [int(f) for f in args[2:]]

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
# The importer converts keyframe seconds to frames with the scene's rate.
scene.render.fps = 30
scene.render.fps_base = 1
bpy.ops.import_scene.gltf(filepath=path)

armature = next(o for o in scene.objects if o.type == "ARMATURE")
mesh_object = next(o for o in scene.objects if o.type == "MESH")
# Blender names an imported action "<clip>_<armature>" when the file has one clip per armature.
action = next((a for a in bpy.data.actions if a.name == action_name), None) or next(
    a for a in bpy.data.actions if a.name.startswith(action_name)
)
if armature.animation_data is None:
    armature.animation_data_create()
armature.animation_data.action = action
start = int(action.frame_range[0])


def to_gltf(v):
    return [v.x, v.z, -v.y]


def vertices():
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = mesh_object.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    world = evaluated.matrix_world
    out = [c for v in mesh.vertices for c in to_gltf(world @ v.co)]
    evaluated.to_mesh_clear()
    return out


rest = [c for v in mesh_object.data.vertices for c in to_gltf(mesh_object.matrix_world @ v.co)]
posed = {}
for frame in frames:
    scene.frame_set(start + frame)
    posed[str(frame)] = vertices()

if export_path:
    scene.frame_set(start)
    bpy.ops.export_scene.gltf(filepath=export_path, export_format="GLB", export_animations=True)

print("RIGWRIGHT_JSON " + json.dumps({
    "bones": [b.name for b in armature.data.bones],
    "vertexGroups": [g.name for g in mesh_object.vertex_groups],
    "actions": [a.name for a in bpy.data.actions],
    "actionStart": start,
    "rest": rest,
    "posed": posed,
}))
