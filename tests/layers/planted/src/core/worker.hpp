// Part of the planted tree (src/sim/planted.cpp includes it).
#pragma once
