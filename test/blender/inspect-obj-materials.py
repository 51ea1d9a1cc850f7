"""Imports an OBJ file (with its MTL and images beside it) into an empty Blender scene with Blender's own OBJ importer
and prints, as one JSON line prefixed with RIGWRIGHT_JSON, each material's Principled BSDF metallic, roughness and
alpha, its blend method, and whether an image feeds its normal map and its emission.

Usage: blender -b --factory-startup --python inspect-obj-materials.py -- FILE.obj
"""
import json
import sys

import bpy

path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.wm.obj_import(filepath=path)


def fed_by_image(node, socket):
    """Whether an image texture feeds the socket, directly or through a Normal Map node."""
    for link in node.inputs[socket].links:
        source = link.from_node
        if source.type == "TEX_IMAGE":
            return True
        if source.type == "NORMAL_MAP" and source.inputs["Color"].links:
            return True
    return False


materials = {}
for material in bpy.data.materials:
    if not material.use_nodes:
        continue
    bsdf = next(n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    emission = "Emission Color" if "Emission Color" in bsdf.inputs else "Emission"
    materials[material.name] = {
        "metallic": bsdf.inputs["Metallic"].default_value,
        "roughness": bsdf.inputs["Roughness"].default_value,
        "alpha": bsdf.inputs["Alpha"].default_value,
        "blend": material.blend_method,
        "normalMap": fed_by_image(bsdf, "Normal"),
        "emissionMap": fed_by_image(bsdf, emission),
    }
print("RIGWRIGHT_JSON " + json.dumps({"materials": materials}))
