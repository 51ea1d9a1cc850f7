"""Imports a glTF file into an empty Blender scene and prints, as one JSON line prefixed with RIGWRIGHT_JSON, the
armatures (name, bones) and every mesh object: its name, the armature its Armature modifier deforms it with (or
null), its vertex groups, vertex count, UV layers, materials (name, whether an image feeds the base colour), and how
far its vertices move (largest distance, Blender units) when the armature's first root bone turns 90° about X.

Usage: blender -b --factory-startup --python inspect-meshes.py -- FILE.glb
"""
import json
import math
import sys

import bpy
import numpy

# Blender 3.4's glTF importer uses numpy.bool, which numpy 1.24 (Debian 12) removed; it meant the builtin.
if "bool" not in numpy.__dict__:
    numpy.bool = bool

path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
bpy.ops.import_scene.gltf(filepath=path)

armatures = [o for o in scene.objects if o.type == "ARMATURE"]
meshes = [o for o in scene.objects if o.type == "MESH"]


def world_vertices(obj):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    out = [evaluated.matrix_world @ v.co for v in mesh.vertices]
    evaluated.to_mesh_clear()
    return out


rest = {o.name: world_vertices(o) for o in meshes}
if armatures:
    root = next(b for b in armatures[0].pose.bones if b.parent is None)
    root.rotation_mode = "XYZ"
    root.rotation_euler = (math.pi / 2, 0, 0)
    bpy.context.view_layer.update()
moved = {}
for o in meshes:
    posed = world_vertices(o)
    moved[o.name] = max((a - b).length for a, b in zip(rest[o.name], posed)) if posed else 0


def material_info(material):
    image = False
    if material and material.use_nodes:
        image = any(n.type == "TEX_IMAGE" and n.image is not None for n in material.node_tree.nodes)
    return {"name": material.name if material else None, "image": image}


def armature_of(obj):
    modifier = next((m for m in obj.modifiers if m.type == "ARMATURE"), None)
    return modifier.object.name if modifier and modifier.object else None


print("RIGWRIGHT_JSON " + json.dumps({
    "armatures": [{"name": a.name, "bones": [b.name for b in a.data.bones]} for a in armatures],
    "meshes": [{
        "name": o.name,
        "armature": armature_of(o),
        "vertexGroups": [g.name for g in o.vertex_groups],
        "vertices": len(o.data.vertices),
        "uvLayers": [layer.name for layer in o.data.uv_layers],
        "materials": [material_info(m) for m in o.data.materials],
        "moved": moved[o.name],
    } for o in meshes],
}))
