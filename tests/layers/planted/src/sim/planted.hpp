// Part of the planted tree (planted.cpp): an include the rules allow.
#pragma once
